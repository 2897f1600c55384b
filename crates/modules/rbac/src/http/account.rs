//! What an account does with its own identities, second factor and sessions (or an admin for
//! it), and the admin's account tools.

use std::sync::Arc;

use stoa_api::auth::Caller;
use stoa_api::endpoint::{ById, In, Json, Later, Nothing, Reply, Row};
use stoa_kernel::{Error, Result};
use uuid::Uuid;

use super::{JWT_COOKIE, SubjectIdentity, SubjectSession, ctx, secure, set_cookie};
use crate::bodies;
use crate::rows::SessionView;
use crate::service::Auth;
use crate::views::{
    ApiKeyToken, DONE, Done, Queued, RbacIdentity, RecoveryCodes, SentTo, TotpEnrolment,
    identity_row,
};

type Identity = Row<RbacIdentity>;

fn identity(r: stoa_store::Record) -> Identity {
    Row::new(r.to_json())
}

/// The caller's session when it changes its own account (`None` for an admin acting for another).
fn own_session(c: &Caller, subject: Uuid) -> Option<Uuid> {
    c.session.filter(|_| c.subject == Some(subject))
}

pub(super) async fn totp_start(auth: Arc<Auth>, x: In<ById>) -> Result<TotpEnrolment> {
    auth.totp_start(x.caller.acting_for(x.path.id)?).await
}

pub(super) async fn totp_confirm(
    auth: Arc<Auth>,
    x: In<ById, Nothing, Json<bodies::TotpConfirm>>,
) -> Result<Reply<RecoveryCodes>> {
    let (c, subject) = (&x.caller, x.caller.acting_for(x.path.id)?);
    let b = &x.body.0;
    // Only the account's own session is upgraded (an admin enrolling someone else gets codes).
    let session = own_session(c, subject);
    // The owner proves it is them with the password (when the account has one): a stolen
    // session alone must not put a factor on the account and sign its owner out everywhere.
    if c.subject == Some(subject) {
        auth.confirm_password(subject, b.password.as_deref())
            .await?;
    }
    let (codes, jwt) = auth.totp_confirm(subject, session, &b.code).await?;
    let mut reply = Reply::new(RecoveryCodes {
        recovery_codes: codes,
        jwt: jwt.clone(),
    });
    if let Some(jwt) = jwt {
        let s = secure(&auth, &x.headers);
        set_cookie(
            reply.headers_mut(),
            JWT_COOKIE,
            &jwt,
            auth.cfg.access_ttl,
            s,
        );
    }
    Ok(reply)
}

pub(super) async fn totp_disable(
    auth: Arc<Auth>,
    x: In<ById, Nothing, Json<bodies::TotpDisable>>,
) -> Result<Done> {
    let (c, subject) = (&x.caller, x.caller.acting_for(x.path.id)?);
    let for_other = c.admin && c.subject != Some(subject);
    auth.totp_disable(subject, x.body.0.code.as_deref(), for_other)
        .await?;
    Ok(DONE)
}

pub(super) async fn sessions(auth: Arc<Auth>, x: In<ById>) -> Result<Vec<SessionView>> {
    auth.sessions(x.caller.acting_for(x.path.id)?, x.caller.session)
        .await
}

pub(super) async fn end_session(auth: Arc<Auth>, x: In<SubjectSession>) -> Result<Done> {
    auth.revoke_session(x.caller.acting_for(x.path.id)?, x.path.session_id)
        .await?;
    Ok(DONE)
}

pub(super) async fn identities(auth: Arc<Auth>, x: In<ById>) -> Result<Vec<Identity>> {
    let ids = auth.identities(x.caller.acting_for(x.path.id)?).await?;
    Ok(ids.iter().map(identity_row).collect())
}

pub(super) async fn add_identity(
    auth: Arc<Auth>,
    x: In<ById, Nothing, Later<Json<bodies::NewIdentity>>>,
) -> Result<Identity> {
    let subject = x.caller.acting_for(x.path.id)?;
    let own = own_session(&x.caller, subject);
    let x_ctx = ctx(&x.headers, x.client.clone());
    let b = x.body.read().await.map_err(|e| match e {
        // serde reads the tag before any field: an unknown one is the provider's fault.
        Error::Invalid { message, fields } if fields.is_empty() => Error::invalid_field(
            "provider",
            format!("must be email_and_password, ethereum_virtual_machine or telegram ({message})"),
        ),
        e => e,
    })?;
    let row = auth.add_identity(subject, &b.0, &x_ctx, own).await?;
    Ok(identity(row))
}

pub(super) async fn update_identity(
    auth: Arc<Auth>,
    x: In<SubjectIdentity, Nothing, Json<bodies::IdentityChange>>,
) -> Result<Identity> {
    let subject = x.caller.acting_for(x.path.id)?;
    let row = auth
        .update_identity(
            subject,
            x.path.identity_id,
            x.caller.session,
            &x.body.0,
            &ctx(&x.headers, x.client.clone()),
        )
        .await?;
    Ok(identity(row))
}

pub(super) async fn send_verification(auth: Arc<Auth>, x: In<SubjectIdentity>) -> Result<SentTo> {
    let subject = x.caller.acting_for(x.path.id)?;
    auth.request_verification(
        subject,
        x.path.identity_id,
        &ctx(&x.headers, x.client.clone()),
    )
    .await
}

pub(super) async fn verify_identity(
    auth: Arc<Auth>,
    x: In<SubjectIdentity, Nothing, Json<bodies::Code>>,
) -> Result<Identity> {
    let subject = x.caller.acting_for(x.path.id)?;
    let row = auth
        .verify_identity(
            subject,
            x.path.identity_id,
            &x.body.0.code,
            &ctx(&x.headers, x.client.clone()),
        )
        .await?;
    Ok(identity(row))
}

pub(super) async fn delete_identity(auth: Arc<Auth>, x: In<SubjectIdentity>) -> Result<Identity> {
    let subject = x.caller.acting_for(x.path.id)?;
    let own = own_session(&x.caller, subject);
    let row = auth
        .delete_identity(
            subject,
            x.path.identity_id,
            own,
            &ctx(&x.headers, x.client.clone()),
        )
        .await?;
    Ok(identity(row))
}

pub(super) async fn admin_email_identity(
    auth: Arc<Auth>,
    x: In<Nothing, Nothing, Json<bodies::AdminEmailIdentity>>,
) -> Result<Identity> {
    if !x.caller.admin {
        return Err(Error::Forbidden(
            "only an admin may create identities here".into(),
        ));
    }
    Ok(identity(auth.admin_email_identity(&x.body.0).await?))
}

pub(super) async fn change_password(
    auth: Arc<Auth>,
    x: In<ById, Nothing, Json<bodies::PasswordChange>>,
) -> Result<Identity> {
    let c = &x.caller;
    let id = x.path.id;
    let subject = auth.identity_subject(id).await?;
    if !c.owns(subject) {
        return Err(Error::not_found(format!("rbac.identity {id} not found")));
    }
    let b = x.body.0;
    let change = bodies::IdentityChange {
        password: b.password,
        new_password: Some(b.new_password),
        email: None,
    };
    let row = auth
        .update_identity(
            subject,
            id,
            own_session(c, subject),
            &change,
            &ctx(&x.headers, x.client.clone()),
        )
        .await?;
    Ok(identity(row))
}

pub(super) async fn notify(
    auth: Arc<Auth>,
    x: In<ById, Nothing, Json<bodies::Notify>>,
) -> Result<Queued> {
    auth.notify(x.path.id, &x.body.0).await
}

pub(super) async fn api_key_token(auth: Arc<Auth>, x: In<ById>) -> Result<ApiKeyToken> {
    let (token, token_prefix) = auth.issue_api_key(x.path.id).await?;
    Ok(ApiKeyToken {
        token,
        token_prefix,
    })
}

pub(super) async fn access(
    auth: Arc<Auth>,
    x: In<Nothing, crate::access::Whose>,
) -> Result<crate::access::AccessMap> {
    auth.access(&x.query).await
}
