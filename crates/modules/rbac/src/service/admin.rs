//! Accounts created by an operator (`stoa admin create`), and the first run: while no account
//! holds the admin role, `stoa serve` prints a one-time setup code in its log, and whoever has it
//! creates the first admin in the browser (`/admin`), as Payload, Strapi and Directus greet a new
//! install.

use rand::Rng;
use subtle::ConstantTimeEq;

use super::*;

/// A one-time setup code: twelve letters and digits people cannot misread, in groups of four.
pub(crate) fn setup_code() -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    let mut rng = rand::rng();
    let chars: Vec<char> = (0..12)
        .map(|_| char::from(ALPHABET[rng.random_range(0..ALPHABET.len())]))
        .collect();
    chars
        .chunks(4)
        .map(|c| c.iter().collect::<String>())
        .collect::<Vec<_>>()
        .join("-")
}

/// The code as typed: case, spaces and dashes do not matter.
fn normalise_code(code: &str) -> String {
    code.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

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

    /// Whether any account holds the admin role.
    pub async fn has_admin(&self) -> Result<bool> {
        let Some(admin) = self
            .store
            .find_by(&self.e.role, &[("slug", Val::Text("admin".into()))], 1)
            .await?
            .into_iter()
            .next()
        else {
            return Ok(false);
        };
        Ok(!self
            .store
            .find_by(
                &self.e.s2r,
                &[("roleId", Val::Uuid(Record::must_id(&admin)?))],
                1,
            )
            .await?
            .is_empty())
    }

    /// The setup code while the first admin is still to be made (`None` once one exists).
    pub async fn setup_code(&self) -> Result<Option<String>> {
        let code = self
            .setup
            .0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        match code {
            Some(c) if !self.has_admin().await? => Ok(Some(c)),
            Some(_) => {
                self.forget_setup_code();
                Ok(None)
            }
            None => Ok(None),
        }
    }

    fn forget_setup_code(&self) {
        *self.setup.0.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }

    /// The first admin, made in the browser with the setup code from the server's log, and
    /// signed in. 409 once an admin exists (the code is gone with it), 422 for a wrong code.
    pub async fn first_admin(
        &self,
        code: &str,
        email: &str,
        password: &str,
        ctx: &Ctx,
    ) -> Result<SignIn> {
        let _one = self.setup.1.lock().await;
        let Some(expected) = self.setup_code().await? else {
            return Err(Error::Conflict {
                message: "the site has an administrator already: sign in".into(),
                fields: Default::default(),
            });
        };
        let given = normalise_code(code);
        if !bool::from(given.as_bytes().ct_eq(normalise_code(&expected).as_bytes())) {
            return Err(Error::invalid_field(
                "code",
                "this is not the setup code the server printed in its log",
            ));
        }
        self.create_admin(email, password).await?;
        self.forget_setup_code();
        tracing::info!(
            "the first administrator was created in the browser; the setup code is spent"
        );
        self.login(email, password, ctx).await
    }
}
