//! Wallet sign-in (Sign-In with Ethereum): nonces, signature checks and the sign-in.

use super::*;

impl Auth {
    pub async fn wallet_nonce(&self, ctx: &Ctx) -> Result<crate::views::WalletNonce> {
        self.limits.ip(&ctx.ip).await?;
        let nonce = self.nonces.issue().await?;
        let issued = now();
        Ok(crate::views::WalletNonce {
            nonce,
            domain: self.cfg.domain().to_owned(),
            uri: self.cfg.public_url.clone(),
            chain_ids: siwe_login::CHAINS.to_vec(),
            version: "1",
            issued_at: format_timestamp(issued),
            expires_at: format_timestamp(issued + siwe_login::NONCE_TTL),
        })
    }

    pub(super) async fn verify_wallet(
        &self,
        message: &str,
        signature: &str,
        address: &str,
    ) -> Result<String> {
        siwe_login::verify(
            &self.nonces,
            self.cfg.domain(),
            &self.cfg.public_url,
            message,
            signature,
            address,
        )
        .await
    }

    /// Signs in with a wallet, creating the account on first use.
    pub async fn wallet_login(
        &self,
        message: &str,
        signature: &str,
        address: &str,
        ctx: &Ctx,
    ) -> Result<SignIn> {
        let account = format!("wallet:{}", address.trim().to_lowercase());
        self.limits.before_sign_in(&ctx.ip, &account).await?;
        let addr = match self.verify_wallet(message, signature, address).await {
            Ok(a) => a,
            Err(e) => {
                self.limits.failed(&ctx.ip, &account).await;
                return Err(e);
            }
        };
        self.limits.succeeded(&ctx.ip, &account).await;
        if let Some(i) = self.identity_by_login(WALLET, &addr).await?
            && let Some(subject) = self.subject_of(i.id).await?
        {
            tracing::info!(subject = %subject, event = "login", provider = WALLET, "wallet accepted");
            return self.first_factor_passed(subject, ctx, (i.id, None)).await;
        }
        let roles = self.registration_roles(&[]).await?;
        let t = self
            .new_account(Some((WALLET, &addr, None, true)), &roles, ctx)
            .await?;
        tracing::info!(subject = %t.subject, event = "registration", provider = WALLET, "account registered");
        Ok(SignIn::Done(t))
    }

    // ---- identities ----------------------------------------------------------------------
}
