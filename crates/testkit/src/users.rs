//! Signed-in clients for tests: register or sign in an account and call the API as it.

use serde_json::{Value, json};

use crate::{Res, TestApp, read};

pub const PASSWORD: &str = "violet-anchor-7-lantern";

/// A signed-in account.
#[derive(Clone, Debug)]
pub struct Account {
    pub id: String,
    pub email: String,
    pub password: String,
    pub jwt: String,
    pub refresh: String,
}

/// Calls the API as an account (bearer token), or anonymously.
pub struct As<'a> {
    pub app: &'a TestApp,
    pub jwt: Option<String>,
}

impl As<'_> {
    fn req(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        let r = self.app.plain.request(method, self.app.url(path));
        match &self.jwt {
            Some(t) => r.bearer_auth(t),
            None => r,
        }
    }

    pub async fn get(&self, path: &str) -> Res {
        read(self.req(reqwest::Method::GET, path).send().await).await
    }

    pub async fn post(&self, path: &str, body: &Value) -> Res {
        read(
            self.req(reqwest::Method::POST, path)
                .json(body)
                .send()
                .await,
        )
        .await
    }

    pub async fn patch(&self, path: &str, body: &Value) -> Res {
        read(
            self.req(reqwest::Method::PATCH, path)
                .json(body)
                .send()
                .await,
        )
        .await
    }

    pub async fn delete(&self, path: &str) -> Res {
        read(self.req(reqwest::Method::DELETE, path).send().await).await
    }

    /// POSTs one file as the multipart part `field` (named `name`, claimed type `ctype`).
    pub async fn post_file(
        &self,
        path: &str,
        field: &str,
        name: &str,
        ctype: &str,
        bytes: &[u8],
    ) -> Res {
        let part = reqwest::multipart::Part::bytes(bytes.to_vec())
            .file_name(name.to_owned())
            .mime_str(ctype)
            .unwrap_or_else(|e| panic!("content type {ctype}: {e}"));
        let form = reqwest::multipart::Form::new().part(field.to_owned(), part);
        read(
            self.req(reqwest::Method::POST, path)
                .multipart(form)
                .send()
                .await,
        )
        .await
    }

    /// Any method.
    pub async fn call(&self, method: &str, path: &str, body: Option<&Value>) -> Res {
        let m = reqwest::Method::from_bytes(method.as_bytes()).unwrap_or(reqwest::Method::GET);
        let mut r = self.req(m, path);
        if let Some(b) = body {
            r = r.json(b);
        }
        read(r.send().await).await
    }
}

pub const AUTH: &str = "/api/rbac/subjects/authentication";

impl TestApp {
    /// No credentials.
    pub fn anon(&self) -> As<'_> {
        As {
            app: self,
            jwt: None,
        }
    }

    /// As the holder of `jwt`.
    pub fn bearer(&self, jwt: &str) -> As<'_> {
        As {
            app: self,
            jwt: Some(jwt.to_owned()),
        }
    }

    pub fn as_account(&self, a: &Account) -> As<'_> {
        self.bearer(&a.jwt)
    }

    /// Registers `email` with [`PASSWORD`] and returns the signed-in account.
    pub async fn register(&self, email: &str) -> Account {
        let r = self
            .anon()
            .post(
                &format!("{AUTH}/email-and-password/registration"),
                &json!({"login": email, "password": PASSWORD}),
            )
            .await;
        assert_eq!(r.status, 201, "registration of {email}: {}", r.text);
        self.account(email, PASSWORD, &r).await
    }

    /// Signs in and returns the account.
    pub async fn login(&self, email: &str, password: &str) -> Account {
        let r = self
            .anon()
            .post(
                &format!("{AUTH}/email-and-password/authentication"),
                &json!({"login": email, "password": password}),
            )
            .await;
        assert_eq!(r.status, 201, "sign-in of {email}: {}", r.text);
        self.account(email, password, &r).await
    }

    async fn account(&self, email: &str, password: &str, r: &Res) -> Account {
        let jwt = r.data()["jwt"].as_str().unwrap_or_default().to_owned();
        let refresh = r.data()["refresh"].as_str().unwrap_or_default().to_owned();
        let me = self.bearer(&jwt).get(&format!("{AUTH}/me")).await;
        assert_eq!(me.status, 200, "{}", me.text);
        Account {
            id: me.data()["id"].as_str().unwrap_or_default().to_owned(),
            email: email.to_owned(),
            password: password.to_owned(),
            jwt,
            refresh,
        }
    }

    /// Confirms the account's email with the newest code mailed to it (read from `sink`).
    pub async fn confirm_email(&self, sink: &crate::smtp::Sink, a: &Account) {
        let to = a.email.trim().to_lowercase();
        // Runs due jobs too (an app whose runner is off sends mail only then).
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
        let code = loop {
            if self.jobs.is_some() {
                self.drain_jobs().await;
            }
            let newest = sink
                .mails()
                .into_iter()
                .rev()
                .filter(|m| m.to.contains(&to))
                .find_map(|m| m.confirmation_code());
            if let Some(c) = newest {
                break c;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "no confirmation code reached {to} within 10 s"
            );
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        };
        let me = self.as_account(a);
        let ids = me
            .get(&format!("/api/rbac/subjects/{}/identities", a.id))
            .await;
        let identity = ids
            .data()
            .as_array()
            .and_then(|l| l.iter().find(|i| i["provider"] == "email_and_password"))
            .and_then(|i| i["id"].as_str())
            .unwrap_or_else(|| panic!("{} has no email identity: {}", a.email, ids.text))
            .to_owned();
        let r = me
            .post(
                &format!("/api/rbac/subjects/{}/identities/{identity}/verify", a.id),
                &json!({"code": code}),
            )
            .await;
        assert_eq!(r.status, 200, "confirming {}: {}", a.email, r.text);
        assert!(r.data()["verifiedAt"].is_string(), "{}", r.text);
    }

    /// Registers an account and gives it the admin role (through the secret key).
    pub async fn admin_account(&self, email: &str) -> Account {
        let a = self.register(email).await;
        let roles = self.get("/api/rbac/roles?filters[and][0][column]=slug&filters[and][0][method]=eq&filters[and][0][value]=admin").await;
        let admin = roles.data()[0]["id"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        self.create(
            "/api/rbac/subjects-to-roles",
            &json!({"subjectId": a.id, "roleId": admin}),
        )
        .await;
        a
    }
}

impl As<'_> {
    /// POST with an `Accept-Language`.
    pub async fn send_with_lang(&self, path: &str, body: &Value, lang: &str) -> Res {
        read(
            self.req(reqwest::Method::POST, path)
                .header("accept-language", lang)
                .json(body)
                .send()
                .await,
        )
        .await
    }
}
