//! A local S3-compatible server for tests that store or read files in a bucket.
#![allow(clippy::expect_used, clippy::panic)] // Test support: a test that cannot start its server fails by panicking.

/// A local S3-compatible server (moto, from PyPI) on a free port, and a bucket in it.
pub struct S3 {
    pub endpoint: String,
    child: std::process::Child,
}

impl Drop for S3 {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub async fn start_s3(bucket: &str) -> S3 {
    stoa_api::tls::install();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port");
    let child = std::process::Command::new("python3")
        .args([
            "-m",
            "moto.server",
            "-H",
            "127.0.0.1",
            "-p",
            &port.to_string(),
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("python3 -m moto.server (pip install 'moto[server]'; `make test` installs it)");
    let s3 = S3 {
        endpoint: format!("http://127.0.0.1:{port}"),
        child,
    };
    let client = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("client");
    for _ in 0..150 {
        if let Ok(r) = client.put(format!("{}/{bucket}", s3.endpoint)).send().await
            && r.status().is_success()
        {
            return s3;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!(
        "moto did not start on {} (pip install 'moto[server]')",
        s3.endpoint
    );
}

impl S3 {
    /// The server's port.
    pub fn port(&self) -> u16 {
        self.endpoint
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .unwrap_or(0)
    }
}
