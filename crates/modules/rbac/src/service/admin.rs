//! Accounts created by an operator (`stoa admin create`).

use super::*;

impl Auth {
    /// `stoa admin create`: a subject with an email identity and the admin role.
    pub async fn create_admin(&self, email: &str, password: &str) -> Result<Uuid> {
        let email = normalise_email("email", email)?;
        password::check_new("password", password)?;
        let admin = self
            .store
            .find_by(&self.e.role, &[("slug", Val::Text("admin".into()))], 1)
            .await?
            .into_iter()
            .next()
            .ok_or_else(|| {
                Error::not_found("the admin role does not exist; run `stoa migrate` first")
            })?;
        let hash = self.hasher.hash(password).await?;
        let t = self
            .new_account(
                Some((EMAIL, &email, Some(hash), true)),
                &[Record::must_id(&admin)?],
                &Ctx::default(),
            )
            .await?;
        self.revoke(t.session).await?;
        Ok(t.subject)
    }
}
