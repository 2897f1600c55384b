# nginx as the static-file yardstick (sourced by bench/api.sh and bench/site.sh): installed from
# Debian when missing, and a configuration written for the folder it serves.

if ! command -v nginx >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then apt-get install -y nginx-light >/dev/null 2>&1 || apt-get install -y nginx >/dev/null; else sudo apt-get install -y nginx >/dev/null; fi
fi

# Writes DIR/nginx.conf: 2 workers, sendfile, no access log, serving DIR/www on 127.0.0.1:PORT
# with TYPE as the default type; EXTRA goes into the http block, LOCATION into the server block.
nginx_conf() { # DIR PORT TYPE [EXTRA] [LOCATION]
  local dir=$1 port=$2 type=$3 extra=${4:-} location=${5:-}
  cat >"$dir/nginx.conf" <<NGINX
worker_processes 2;
daemon off;
pid $dir/nginx.pid;
error_log $dir/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  default_type $type;
  $extra
  server {
    listen 127.0.0.1:$port;
    root $dir/www;
    $location
  }
}
NGINX
}
