//! The webhook inbox: a delivery recorded on receipt, verified and processed once by a job.

use super::*;

impl Billing {
    /// One webhook from client `ip`: 429 past `STOA_WEBHOOK_RATE` a minute.
    pub async fn limit(&self, ip: &str) -> Result<()> {
        self.webhook_rate.check(ip).await
    }

    /// Receives a webhook: its signature is verified at once and what it says is checked against
    /// its invoice (amount, currency). Every webhook is written to the inbox with the verdict —
    /// a forged, malformed or mismatched one as `rejected` (answered 4xx, never applied), one of
    /// no use as `ignored` — and an accepted one with the job that applies it exactly once. A
    /// byte-identical copy of an accepted webhook (a provider's retry) is acknowledged and
    /// recorded as a copy, with no effect.
    pub async fn receive(
        &self,
        provider: &str,
        headers: Vec<(String, String)>,
        body: &[u8],
    ) -> Result<Received> {
        self.receive_as(provider, headers, body, true).await
    }

    /// [`Billing::receive`]; an accepted webhook is applied by its job when `queue`, otherwise
    /// in the transaction that writes it (with the job only when applying fails).
    pub(super) async fn receive_as(
        &self,
        provider: &str,
        headers: Vec<(String, String)>,
        body: &[u8],
        queue: bool,
    ) -> Result<Received> {
        let adapter = self.provider(provider).map_err(|_| {
            Error::not_found(format!(
                "no payment provider '{}' is enabled here",
                provider.chars().take(40).collect::<String>()
            ))
        })?;
        if body.len() > MAX_WEBHOOK_BODY {
            return Err(Error::PayloadTooLarge("webhook body too large".into()));
        }
        let kept = kept_headers(headers);
        let incoming = Incoming {
            headers: &kept,
            body,
        };
        let ack = adapter.ack(&incoming);
        // The dedupe key holds the body's digest too: a forged webhook naming a real event must
        // not make the real one look like a copy. Exactly-once application rests on the invoice
        // changing state once; the key only stops retransmissions being applied again.
        let digest = hex_digest(body);
        let key: String = adapter
            .event_key(&incoming)
            .unwrap_or_else(|| format!("body:{}", &digest[..16]))
            .chars()
            .take(200)
            .collect();
        let mut entry = Entry {
            provider,
            key: &key,
            dedupe: format!("{provider}:{key}:{digest}"),
            body,
            headers: &kept,
            inline: None,
        };
        let event = match adapter.verify(&incoming, Some(now())) {
            Ok(e) => e,
            Err(e) if e.status() >= 500 => return Err(e),
            Err(e) => {
                let why = format!("not verified: {}", e.public_message());
                tracing::warn!(provider, reason = %why, "webhook rejected");
                self.record(&entry, "rejected", false, &why, None, None)
                    .await?;
                return Err(e);
            }
        };
        self.receive_verified(provider, &mut entry, &event, ack, queue)
            .await
    }

    /// Writes verified webhook `entry` with what its `event` may do: `ignored` (acknowledged),
    /// `rejected` (its error answered, the admins alerted when it says so), or `received` to be
    /// applied (by its job when `queue`, otherwise as it is written).
    async fn receive_verified<'a>(
        &self,
        provider: &str,
        entry: &mut Entry<'a>,
        event: &'a Event,
        ack: Ack,
        queue: bool,
    ) -> Result<Received> {
        match self.assess(provider, event).await? {
            Verdict::Ignore(why) => {
                let (id, duplicate) = self
                    .record(entry, "ignored", true, &why, None, None)
                    .await?;
                Ok(Received {
                    id,
                    duplicate,
                    ack,
                    pending: None,
                })
            }
            Verdict::Reject(e, alert) => {
                let why = e.public_message();
                tracing::warn!(provider, reason = %why, "webhook refused");
                let alert = alert.then(|| alert_of(provider, &why, event.invoice));
                self.record(entry, "rejected", true, &why, None, alert)
                    .await?;
                Err(e)
            }
            Verdict::Apply(invoice) => {
                let (id, duplicate, pending) = self.accept(entry, event, invoice, queue).await?;
                Ok(Received {
                    id,
                    duplicate,
                    ack,
                    pending,
                })
            }
        }
    }

    /// Writes a verified webhook that applies to `invoice` as `received` (with the job that
    /// applies it when `queue`; otherwise to be applied in the same transaction): its entry's
    /// id, whether it was a copy, and the entry still waiting to be applied that a copy stands
    /// for.
    async fn accept<'a>(
        &self,
        entry: &mut Entry<'a>,
        event: &'a Event,
        invoice: InvoiceRow,
        queue: bool,
    ) -> Result<(Option<Uuid>, bool, Option<Uuid>)> {
        let invoice_id = invoice.id;
        if !queue {
            let payment = self.payment_of(&invoice).await?;
            entry.inline = Some(Inline {
                event,
                invoice,
                payment,
            });
        }
        let (id, duplicate) = self
            .record(
                entry,
                "received",
                true,
                "verified; being applied",
                Some(invoice_id),
                None,
            )
            .await?;
        let pending = match (queue, duplicate) {
            (_, false) | (true, true) => None,
            // A copy of an entry still waiting to be applied (its own application failed and
            // its job has not run yet, or an earlier version's receiver stopped between the
            // two): applied now.
            (false, true) => self
                .store
                .find_by(
                    &self.e.webhook,
                    &[
                        ("dedupeKey", Val::Text(entry.dedupe.clone())),
                        ("status", Val::Text("received".into())),
                    ],
                    1,
                )
                .await?
                .first()
                .and_then(Record::id),
        };
        Ok((id, duplicate, pending))
    }

    /// Writes an inbox entry in `status` (with the job that applies it when `received` and the
    /// entry asks for one, and the admins' alert when given). A second copy of an accepted entry
    /// is written as an `ignored` copy; rejected entries never block a later genuine one.
    pub(super) async fn record(
        &self,
        entry: &Entry<'_>,
        status: &str,
        verified: bool,
        result: &str,
        invoice: Option<Uuid>,
        alert: Option<Value>,
    ) -> Result<(Option<Uuid>, bool)> {
        count_webhook(entry.provider, status);
        let unverified = status == "rejected" && !verified;
        let text = kept_body(entry.body, unverified);
        let headers = entry_headers(entry.headers, unverified);
        let dedupe = if status == "rejected" {
            format!("{}:rejected:{}", entry.dedupe, Uuid::new_v4().simple())
        } else {
            entry.dedupe.clone()
        };
        let row = |status: &str, result: &str, dedupe: &str| {
            let mut m = fields(json!({
                "provider": entry.provider,
                "eventKey": entry.key,
                "dedupeKey": dedupe,
                "body": text,
                "headers": headers,
                "status": status,
                "verified": verified,
                "result": result.chars().take(2000).collect::<String>(),
                "invoiceId": invoice,
            }));
            if status != "received" {
                m.insert("processedAt".into(), json!(now_text()));
            }
            m
        };
        let mut tx = self.store.begin().await?;
        let written = {
            let mut exec = tx.exec();
            match self
                .store
                .create_in(&mut exec, &self.e.webhook, &row(status, result, &dedupe))
                .await
            {
                Ok(r) => {
                    let id = Record::must_id(&r)?;
                    self.after_write(&mut exec, entry, status, id, alert)
                        .await?;
                    Some(id)
                }
                // The same webhook is already in the inbox (or being written concurrently).
                Err(Error::Conflict { .. }) => None,
                Err(e) => return Err(e),
            }
        };
        let Some(id) = written else {
            drop(tx);
            let copy = self.record_copy(entry, &row).await?;
            return Ok((copy, true));
        };
        tx.commit().await?;
        Ok((Some(id), false))
    }

    /// What goes with entry `id` in the transaction that writes it: when `received`, applying it
    /// (or the job that does); the admins' `alert`, when given.
    async fn after_write(
        &self,
        exec: &mut Exec<'_>,
        entry: &Entry<'_>,
        status: &str,
        id: Uuid,
        alert: Option<Value>,
    ) -> Result<()> {
        if status == "received" {
            let applied = match &entry.inline {
                Some(i) => self.apply_nested(exec, id, i).await?,
                None => false,
            };
            if !applied {
                enqueue(exec, &NewJob::now(JOB_WEBHOOK, json!({"id": id}))).await?;
            }
        }
        if let Some(mut a) = alert {
            a["inbox"] = json!(id);
            enqueue(exec, &NewJob::now(JOB_ALERT, a)).await?;
        }
        Ok(())
    }

    /// Writes a copy of `entry`, already in the inbox, as `ignored` (`row` makes the row): the
    /// copy's id.
    async fn record_copy(
        &self,
        entry: &Entry<'_>,
        row: impl Fn(&str, &str, &str) -> Map<String, Value>,
    ) -> Result<Option<Uuid>> {
        tracing::info!(provider = entry.provider, event = %entry.key, "duplicate webhook: acknowledged, no effect");
        let copy = format!("{}:copy:{}", entry.dedupe, Uuid::new_v4().simple());
        let mut tx = self.store.begin().await?;
        let r = self
            .store
            .create_in(
                &mut tx.exec(),
                &self.e.webhook,
                &row(
                    "ignored",
                    "a copy of a webhook already received: acknowledged, no effect",
                    &copy,
                ),
            )
            .await?;
        tx.commit().await?;
        Ok(r.id())
    }

    /// Applies the entry `id` just written, inside a nested savepoint of its transaction;
    /// `false` (its work undone) when that failed, and its job is to apply it instead.
    pub(super) async fn apply_nested(
        &self,
        exec: &mut Exec<'_>,
        id: Uuid,
        i: &Inline<'_>,
    ) -> Result<bool> {
        let level = exec.begin_nested().await?;
        let failed = match self
            .apply_in(exec, id, i.event, &i.invoice, &i.payment)
            .await
        {
            Ok(outcome) => match exec.end_nested(level, true).await {
                Ok(()) => {
                    tracing::info!(inbox = %id, outcome = ?outcome, "webhook processed");
                    return Ok(true);
                }
                Err(e) => e,
            },
            Err(e) => e,
        };
        tracing::warn!(inbox = %id, error = %failed, "applying a webhook as it was written failed; its job applies it");
        exec.end_nested(level, false).await?;
        Ok(false)
    }

    pub async fn process_job(&self, payload: &Value) -> stoa_api::module::ModuleResult<()> {
        let id = stoa_api::jobs::uuid_arg(payload, "id")?;
        let outcome = self.process(id).await?;
        tracing::info!(inbox = %id, outcome = ?outcome, "webhook processed");
        Ok(())
    }

    pub(super) async fn finish(
        &self,
        id: Uuid,
        status: &str,
        verified: bool,
        result: &str,
    ) -> Result<bool> {
        let mut tx = self.store.begin().await?;
        let done = repo::set_if(
            &mut tx.exec(),
            &self.e.webhook,
            id,
            &[
                ("status", Val::Text(status.into())),
                ("verified", Val::Bool(verified)),
                ("result", Val::Text(result.chars().take(2000).collect())),
                ("processedAt", Val::Timestamp(now())),
            ],
            &[("status", Val::Text("received".into()))],
        )
        .await?
        .is_some();
        tx.commit().await?;
        Ok(done)
    }

    /// Verifies (the signature again; its timestamp was checked at receipt) and applies one
    /// inbox entry, once.
    pub async fn process(&self, id: Uuid) -> Result<Outcome> {
        let row = WebhookRow::of(&self.store.get(&self.e.webhook, id).await?)?;
        if row.status.as_deref() != Some("received") {
            return Ok(Outcome::Skipped);
        }
        let provider = row.provider.unwrap_or_default();
        let body = row.body.unwrap_or_default().into_bytes();
        let event = if row.dedupe_key.is_some_and(|k| k.starts_with(STATUS_SOURCE)) {
            // Written by our own status check (no provider is named so): the status API's
            // answer, read over TLS from the provider, is the proof.
            match serde_json::from_slice::<StatusEntry>(&body) {
                Ok(s) => s.event(),
                Err(e) => {
                    let why = format!("unreadable status entry: {e}");
                    self.finish(id, "rejected", false, &why).await?;
                    return Ok(Outcome::Rejected(why));
                }
            }
        } else {
            let headers: Vec<(String, String)> = row
                .headers
                .and_then(|h| h.as_object().cloned())
                .unwrap_or_default()
                .into_iter()
                .map(|(k, v)| (k, v.as_str().unwrap_or_default().to_owned()))
                .collect();
            let Some(adapter) = self.providers.get(provider.as_str()).cloned() else {
                self.finish(id, "rejected", false, "the provider is not enabled")
                    .await?;
                return Ok(Outcome::Rejected("the provider is not enabled".into()));
            };
            let incoming = Incoming {
                headers: &headers,
                body: &body,
            };
            match adapter.verify(&incoming, None) {
                Ok(e) => e,
                Err(e) if e.status() >= 500 => return Err(e),
                Err(e) => {
                    let why = format!("not verified: {}", e.public_message());
                    self.finish(id, "rejected", false, &why).await?;
                    tracing::warn!(inbox = %id, provider, reason = %why, "webhook rejected");
                    return Ok(Outcome::Rejected(why));
                }
            }
        };
        match self.assess(&provider, &event).await? {
            Verdict::Ignore(why) => {
                self.finish(id, "ignored", true, &why).await?;
                Ok(Outcome::Ignored(why))
            }
            Verdict::Reject(e, _) => {
                let why = e.public_message();
                self.finish(id, "rejected", true, &why).await?;
                Ok(Outcome::Rejected(why))
            }
            Verdict::Apply(invoice) => self.apply(id, &event, &invoice).await,
        }
    }

    pub(super) async fn find_invoice(
        &self,
        provider: &str,
        event: &Event,
    ) -> Result<Option<InvoiceRow>> {
        let (key, value) = match (event.invoice, &event.provider_id) {
            (Some(i), _) => ("id", Val::Uuid(i)),
            (None, Some(p)) => ("providerId", Val::Text(p.clone())),
            (None, None) => return Ok(None),
        };
        let found = self
            .store
            .find_by(
                &self.e.invoice,
                &[(key, value), ("provider", Val::Text(provider.into()))],
                1,
            )
            .await?
            .first()
            .map(InvoiceRow::of)
            .transpose()?;
        // When the event names both, they must be the same payment (our reference may be
        // outside what the provider signs).
        Ok(found.filter(
            |inv| match (&event.provider_id, inv.provider_id.as_deref()) {
                // An invoice the provider has not named yet is not this payment's (yet).
                (Some(said), ours) => ours.is_some_and(|o| !o.is_empty() && o == said),
                _ => true,
            },
        ))
    }

    pub(super) async fn currency_slugs(&self, intents: &[Uuid]) -> Result<HashSet<String>> {
        let cur: Vec<Val> = self
            .store
            .linked(
                &self.e.i2c,
                "paymentIntentId",
                intents,
                "currencyId",
                intents.len().max(1) * 2,
            )
            .await?
            .into_iter()
            .map(Val::Uuid)
            .collect();
        Ok(self
            .store
            .find_in(&self.e.currency, "id", &cur, cur.len().max(1))
            .await?
            .iter()
            .filter_map(|c| CurrencyRow::of(c).ok()?.slug.map(|s| s.to_lowercase()))
            .collect())
    }

    /// What a verified event may do: find its invoice, check the proof of providers without a
    /// signature, and check that the amount and currency paid are the invoice's.
    pub(super) async fn assess(&self, provider: &str, event: &Event) -> Result<Verdict> {
        match &event.outcome {
            Said::Other(why) => return Ok(Verdict::Ignore(why.clone())),
            Said::Failed(why) => {
                return Ok(Verdict::Ignore(format!(
                    "the provider reports the payment did not go through ({why})"
                )));
            }
            Said::Paid => {}
        }
        let Some(invoice) = self.find_invoice(provider, event).await? else {
            return Ok(Verdict::Reject(
                Error::not_found(format!("no invoice of {provider} matches this webhook")),
                false,
            ));
        };
        if let Some(t) = &event.token {
            let expected = invoice.provider_id.as_deref().unwrap_or_default();
            if !crate::provider::sign::same(t, expected) {
                return Ok(Verdict::Reject(
                    Error::Unauthorized("the proof does not match the invoice".into()),
                    false,
                ));
            }
        }
        let due = invoice.amount.unwrap_or_default();
        // Every real provider states what was paid; a payment that does not is not credited.
        if event.amount.is_none() && provider != "dummy" {
            return Ok(Verdict::Reject(
                Error::bad_request("the payment does not say how much was paid"),
                false,
            ));
        }
        // Compared at the precision providers charge (cents): a price with more decimals is
        // charged rounded.
        if let Some(paid) = event.amount
            && paid.round_dp(2) != due.round_dp(2)
        {
            return Ok(Verdict::Reject(
                Error::invalid_field(
                    "amount",
                    format!(
                        "paid {}, but invoice {} is for {}",
                        paid.normalize(),
                        invoice.id,
                        due.normalize()
                    ),
                ),
                true,
            ));
        }
        if let Some(c) = &event.currency {
            let intents = self.intents_of_invoice(invoice.id).await?;
            let slugs = self.currency_slugs(&intents).await?;
            if !slugs.contains(&c.to_lowercase()) {
                let mut slugs: Vec<String> = slugs.into_iter().collect();
                slugs.sort();
                return Ok(Verdict::Reject(
                    Error::invalid_field(
                        "currency",
                        format!("paid in {c}, but the invoice is in {}", slugs.join(", ")),
                    ),
                    true,
                ));
            }
        }
        Ok(Verdict::Apply(invoice))
    }
}

/// Counts a webhook written to the inbox in `status`, by provider.
fn count_webhook(provider: &str, status: &str) {
    stoa_api::metrics::Metrics::outcome(
        &stoa_api::metrics::METRICS.webhooks,
        provider,
        match status {
            "received" => "received",
            "ignored" => "ignored",
            "rejected" => "rejected",
            _ => "other",
        },
    );
}

/// The text an inbox entry keeps of `body`: all of it, but of an `unverified` (rejected) one only
/// its first [`REJECTED_BODY`] bytes.
fn kept_body(body: &[u8], unverified: bool) -> String {
    let mut text = String::from_utf8_lossy(body).into_owned();
    if unverified && text.len() > REJECTED_BODY {
        // Unverified junk costs its sender more than it costs the inbox.
        let cut = (0..=REJECTED_BODY)
            .rev()
            .find(|i| text.is_char_boundary(*i))
            .unwrap_or(0);
        text.truncate(cut);
        text.push_str(" …[cut]");
    }
    text
}

/// The headers an inbox entry keeps as JSON: an `unverified` (rejected) one's cut down.
fn entry_headers(headers: &[(String, String)], unverified: bool) -> Map<String, Value> {
    if unverified {
        rejected_headers(headers)
    } else {
        headers.iter().map(|(k, v)| (k.clone(), json!(v))).collect()
    }
}

/// The headers an inbox entry keeps: at most [`KEPT_HEADERS`], never a credential.
fn kept_headers(headers: Vec<(String, String)>) -> Vec<(String, String)> {
    headers
        .into_iter()
        .filter(|(k, _)| {
            !matches!(
                k.as_str(),
                "cookie" | "authorization" | "x-rbac-secret-key" | "proxy-authorization"
            )
        })
        .take(KEPT_HEADERS)
        .collect()
}
