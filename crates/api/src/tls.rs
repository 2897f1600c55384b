//! Outgoing TLS (payment providers' APIs): reqwest's rustls runs on the `ring` provider, the one
//! lettre and sqlx already build, so no second crypto library is compiled. Every process that
//! builds an HTTP client calls [`install`] first (it is idempotent).

/// Makes `ring` the process's rustls provider unless one is installed already.
pub fn install() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Losing a race with another thread installing the same provider is fine.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}
