# Shared by the wrk benchmarks (sourced): the release binary (built when missing), the results
# folder, and wrk (installed from Debian when missing).
BIN=${STOA_BIN:-./target/release/stoa}
OUT=bench/results
mkdir -p "$OUT"

[ -x "$BIN" ] || cargo build --release -p stoa-server
if ! command -v wrk >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then apt-get install -y wrk >/dev/null; else sudo apt-get install -y wrk >/dev/null; fi
fi
