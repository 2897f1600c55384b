//! The module contract: one value per module carries everything about it — its declarations, the
//! services it starts, its routes (each with its OpenAPI operation and default access), its seeds,
//! its background jobs and schedules, and its contributions to the page bundle. The server holds
//! one list of these and iterates it; adding a module is a folder plus one line in that list.
//!
//! Start-up runs in phases, in list order (a module may use the services of modules before it):
//! 1. `setup`: build services from the configuration and put them in the [`Context`];
//! 2. `routes`: every module's route book, merged (the generic API comes from the declarations);
//! 3. `seeds`: run-once data, with the finished route book visible ([`Context::operations`]);
//! 4. jobs run on the queue, schedules enqueue them when due (see [`crate::jobs`]).

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use serde_json::Value;
use stoa_kernel::Result;
use stoa_store::Store;

use crate::config::Config;
use crate::crud::AppState;
use crate::routes::{Operation, RouteBook};

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What every phase sees: the store, the configuration, the services modules started, and (from
/// the seeds on) the operations of the whole route book.
pub struct Context {
    pub store: Store,
    pub config: Arc<Config>,
    services: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
    operations: Vec<Operation>,
    bundle_parts: Vec<Arc<dyn BundlePart>>,
}

impl Context {
    pub fn new(store: Store, config: Arc<Config>) -> Self {
        Self {
            store,
            config,
            services: HashMap::new(),
            operations: Vec::new(),
            bundle_parts: Vec::new(),
        }
    }

    /// Makes `service` available to later modules (one per type; a second replaces the first).
    pub fn provide<T: ?Sized + Send + Sync + 'static>(&mut self, service: Arc<T>) {
        self.services.insert(TypeId::of::<T>(), Arc::new(service));
    }

    /// The service of type `T`, when a module provided one.
    pub fn get<T: ?Sized + Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.services
            .get(&TypeId::of::<T>())
            .and_then(|s| s.downcast_ref::<Arc<T>>())
            .cloned()
    }

    /// The service of type `T`, or an error naming it (a module listed before its provider).
    pub fn need<T: ?Sized + Send + Sync + 'static>(&self) -> ModuleResult<Arc<T>> {
        self.get::<T>()
            .ok_or(ModuleError::Missing(std::any::type_name::<T>()))
    }

    /// Every operation of the assembled route book (empty until the routes are built).
    pub fn operations(&self) -> &[Operation] {
        &self.operations
    }

    pub fn set_operations(&mut self, ops: Vec<Operation>) {
        self.operations = ops;
    }

    /// Every module's contribution to page bundles, in module order.
    pub fn bundle_parts(&self) -> &[Arc<dyn BundlePart>] {
        &self.bundle_parts
    }
}

/// A module's contribution to the page bundle: host builds the page (page → layouts → widgets →
/// module widgets → records), then hands the whole bundle to each part, which may add what its
/// records need (ecommerce: product prices).
pub trait BundlePart: Send + Sync {
    fn contribute<'a>(
        &'a self,
        store: &'a Store,
        bundle: &'a mut Value,
    ) -> BoxFuture<'a, Result<()>>;
}

/// Named events for first-party analytics (provided by analytic): a module records what
/// happened on the server (`checkout-completed`) without knowing how it is counted.
pub trait EventSink: Send + Sync {
    fn event(&self, name: &str, path: &str);
}

/// The longest page URL a request may name.
pub const MAX_PAGE_URL: usize = 2000;

/// The path of a requested URL: no query or fragment, no empty segments (`//blog/` → `/blog`),
/// `index` → `/`. Pages match by segments, so every spelling of one path comes out the same —
/// and caches keyed on it get one entry per page, whatever the raw request.
pub fn page_path(url: &str) -> stoa_kernel::Result<String> {
    if url.len() > MAX_PAGE_URL {
        return Err(stoa_kernel::Error::bad_field(
            "url",
            format!("must be at most {MAX_PAGE_URL} characters"),
        ));
    }
    let raw = url.split(['?', '#']).next().unwrap_or_default().trim();
    let mut path = String::with_capacity(raw.len() + 1);
    for seg in raw.split('/').filter(|s| !s.is_empty()) {
        path.push('/');
        path.push_str(seg);
    }
    if path.is_empty() {
        path.push('/');
    }
    Ok(if path == "/index" {
        "/".to_owned()
    } else {
        path
    })
}

/// A page bundle's metadata in `lang` (the page's, over the site defaults, in that language),
/// else its language-neutral metadata.
pub fn bundle_meta<'a>(bundle: &'a Value, lang: &str) -> &'a Value {
    match &bundle["metaByLanguage"][lang] {
        Value::Object(_) => &bundle["metaByLanguage"][lang],
        _ => &bundle["meta"],
    }
}

/// The site's name in `lang` as a page bundle's metadata gives it (`opengraphSiteName`).
pub fn bundle_site_name<'a>(bundle: &'a Value, lang: &str) -> Option<&'a str> {
    bundle_meta(bundle, lang)
        .get("opengraphSiteName")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// The public pages, as the site needs them (provided by host).
pub trait Pages: Send + Sync {
    /// The bundle of the page `url` shows, or `None` when no page does.
    fn bundle<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<Option<Arc<Value>>>>;
    /// The bundle of `url` with drafts, never cached: call it only for a verified admin.
    fn preview<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<Option<Arc<Value>>>>;
    /// [`Pages::preview`] with an admin's unsaved draft (`key`, from the page builder) laid over
    /// its records; the plain preview when the draft is gone.
    fn preview_draft<'a>(
        &'a self,
        url: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<Option<Arc<Value>>>> {
        let _ = key;
        self.preview(url)
    }
    /// The sitemap of the site at `public_url` in `languages`: `part` `None` is `/sitemap.xml`
    /// (the one file, or the index of the files when the URLs need several), `Some(n)` is
    /// `/sitemaps/{n}.xml`; `None` when there is no such file. Cached: a request costs a lookup,
    /// or rendering one file of at most `STOA_SITEMAP_URLS_PER_FILE` entries, never a walk over
    /// the data.
    fn sitemap<'a>(
        &'a self,
        public_url: &'a str,
        languages: &'a [&'a str],
        part: Option<usize>,
    ) -> BoxFuture<'a, Result<Option<bytes::Bytes>>>;
    /// The blog's Atom feed in `lang` titled `title` (its newest articles); `None` when the site
    /// shows no article on a page of its own. Cached like the sitemap.
    fn feed<'a>(
        &'a self,
        public_url: &'a str,
        lang: &'a str,
        title: &'a str,
    ) -> BoxFuture<'a, Result<Option<bytes::Bytes>>>;
}

/// Why a module could not be put together, or why one run of its job failed: said to the
/// operator at start, or kept with the job (never to a visitor).
#[derive(Debug, thiserror::Error)]
pub enum ModuleError {
    /// A setting is missing or wrong; the message says which, for the operator to fix.
    #[error("{0}")]
    Config(String),
    /// A service the module needs, which no module provides.
    #[error("no module provides {0}; is it listed after the module that needs it?")]
    Missing(&'static str),
    /// A job's payload it can never run (malformed, or written by another version): the job is
    /// buried at once rather than retried.
    #[error("{0}")]
    Payload(String),
    /// The platform's error (the store, a provider, mail): a job's run is retried.
    #[error(transparent)]
    Platform(#[from] stoa_kernel::Error),
    /// One of the above, in the module named.
    #[error("module {module}: {source}")]
    In {
        module: &'static str,
        source: Box<ModuleError>,
    },
}

impl ModuleError {
    /// A setting the operator must fix.
    pub fn config(message: impl Into<String>) -> Self {
        ModuleError::Config(message.into())
    }

    /// A job payload that can never run.
    pub fn payload(message: impl Into<String>) -> Self {
        ModuleError::Payload(message.into())
    }

    /// Whether running the job again may succeed.
    pub fn retried(&self) -> bool {
        match self {
            ModuleError::Payload(_) => false,
            ModuleError::In { source, .. } => source.retried(),
            _ => true,
        }
    }

    fn in_module(self, module: &'static str) -> Self {
        ModuleError::In {
            module,
            source: Box::new(self),
        }
    }
}

/// A message built where a setting is read (`format!("STOA_FILES: …")`) is a setting to fix.
/// (A job that fails with a message of its own is retried like any other failure.)
impl From<String> for ModuleError {
    fn from(message: String) -> Self {
        ModuleError::Config(message)
    }
}

impl From<&str> for ModuleError {
    fn from(message: &str) -> Self {
        ModuleError::Config(message.to_owned())
    }
}

/// What a module's setup, routes and jobs answer.
pub type ModuleResult<T> = std::result::Result<T, ModuleError>;

type SetupFn = Box<dyn Fn(&mut Context) -> ModuleResult<()> + Send + Sync>;
type RoutesFn = Box<dyn Fn(&Context) -> ModuleResult<RouteBook<AppState>> + Send + Sync>;
type SeedFn = Box<dyn for<'a> Fn(&'a Context) -> BoxFuture<'a, Result<()>> + Send + Sync>;
type LayerFn = Box<dyn Fn(&Context, Router) -> ModuleResult<Router> + Send + Sync>;
type SiteFn = Box<dyn Fn(&Context) -> ModuleResult<Router> + Send + Sync>;
/// What a job runs: the context and the job's payload. An `Err` is retried while attempts are
/// left, except [`ModuleError::Payload`] (a payload it can never run), which buries the job.
pub type JobFn =
    Arc<dyn Fn(Arc<Context>, Value) -> BoxFuture<'static, ModuleResult<()>> + Send + Sync>;

/// A kind of background work a module runs from the queue.
#[derive(Clone)]
pub struct JobDef {
    /// `module.job`, unique across modules.
    pub name: &'static str,
    /// Attempts before the job is marked dead.
    pub max_attempts: u32,
    /// Delay before attempt n+1: `backoff * 2^(n-1)`, capped at `max_backoff`.
    pub backoff: Duration,
    pub max_backoff: Duration,
    /// Longest one attempt may take; past it the attempt counts as failed.
    pub timeout: Duration,
    /// Work nobody waits on (mail, receipts, alerts): claimed after the other jobs and with at
    /// most an eighth of the runner's slots while those keep it busy, so a burst of payments is
    /// not slowed by the mail it causes; it catches up after, on up to half of the slots once
    /// the other jobs have been idle for half a second.
    pub background: bool,
    pub run: JobFn,
}

impl JobDef {
    /// A job with 5 attempts, 10 s base backoff (capped at 1 h) and a 5 min timeout.
    pub fn new<F, Fut>(name: &'static str, run: F) -> Self
    where
        F: Fn(Arc<Context>, Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ModuleResult<()>> + Send + 'static,
    {
        Self {
            name,
            max_attempts: 5,
            backoff: Duration::from_secs(10),
            max_backoff: Duration::from_secs(3600),
            timeout: Duration::from_secs(300),
            background: false,
            run: Arc::new(move |ctx, payload| Box::pin(run(ctx, payload))),
        }
    }

    /// See [`JobDef::background`].
    pub fn background(mut self) -> Self {
        self.background = true;
        self
    }

    pub fn attempts(mut self, n: u32) -> Self {
        self.max_attempts = n.max(1);
        self
    }

    pub fn backoff(mut self, base: Duration, max: Duration) -> Self {
        self.backoff = base;
        self.max_backoff = max.max(base);
        self
    }

    pub fn timeout(mut self, t: Duration) -> Self {
        self.timeout = t;
        self
    }

    /// The delay after `attempts` failed attempts.
    pub fn delay_after(&self, attempts: u32) -> Duration {
        let factor = 2u32.saturating_pow(attempts.saturating_sub(1).min(20));
        self.backoff.saturating_mul(factor).min(self.max_backoff)
    }
}

/// Enqueue `job` every `every` (one run per period across all instances).
#[derive(Clone, Debug)]
pub struct Schedule {
    pub job: &'static str,
    pub every: Duration,
    pub payload: Value,
}

/// Everything about one module.
pub struct ModuleDef {
    pub declarations: stoa_kernel::model::Module,
    /// Links this module owns that live under a lower module's name — the original system's
    /// tables and routes, such as `rbac.subjects-to-ecommerce-module-orders`, which ecommerce
    /// declares and queries so that rbac names no module above it.
    pub links: Vec<stoa_kernel::model::Module>,
    /// Variants this module adds to a lower module's entity: the kinds of its own mail
    /// templates on `notification.template`, so notification lists no module above it.
    pub variants: Vec<(&'static str, &'static [&'static str])>,
    setup: Vec<SetupFn>,
    routes: Vec<RoutesFn>,
    seeds: Vec<SeedFn>,
    layers: Vec<LayerFn>,
    site: Vec<SiteFn>,
    pub jobs: Vec<JobDef>,
    pub schedules: Vec<Schedule>,
    pub bundle_parts: Vec<Arc<dyn BundlePart>>,
}

impl ModuleDef {
    pub fn new(declarations: stoa_kernel::model::Module) -> Self {
        Self {
            declarations,
            links: Vec::new(),
            variants: Vec::new(),
            setup: Vec::new(),
            routes: Vec::new(),
            seeds: Vec::new(),
            layers: Vec::new(),
            site: Vec::new(),
            jobs: Vec::new(),
            schedules: Vec::new(),
            bundle_parts: Vec::new(),
        }
    }

    pub fn name(&self) -> &'static str {
        self.declarations.name
    }

    /// Adds `variants` to the entity `entity` of a lower module (see [`ModuleDef::variants`]).
    pub fn variants(mut self, entity: &'static str, variants: &'static [&'static str]) -> Self {
        self.variants.push((entity, variants));
        self
    }

    /// Declares links this module owns under the lower module `links.name` (see
    /// [`ModuleDef::links`]); their words come with them.
    pub fn links(mut self, links: stoa_kernel::model::Module) -> Self {
        self.links.push(links);
        self
    }

    /// Starts services (phase 1).
    pub fn setup(
        mut self,
        f: impl Fn(&mut Context) -> ModuleResult<()> + Send + Sync + 'static,
    ) -> Self {
        self.setup.push(Box::new(f));
        self
    }

    /// Custom routes (phase 2).
    pub fn routes(
        mut self,
        f: impl Fn(&Context) -> ModuleResult<RouteBook<AppState>> + Send + Sync + 'static,
    ) -> Self {
        self.routes.push(Box::new(f));
        self
    }

    /// A run-once data seed (phase 3); it records itself (see `stoa_store::seed`).
    pub fn seed(
        mut self,
        f: impl for<'a> Fn(&'a Context) -> BoxFuture<'a, Result<()>> + Send + Sync + 'static,
    ) -> Self {
        self.seeds.push(Box::new(f));
        self
    }

    /// Wraps the API router (authorization is rbac's layer).
    pub fn layer(
        mut self,
        f: impl Fn(&Context, Router) -> ModuleResult<Router> + Send + Sync + 'static,
    ) -> Self {
        self.layers.push(Box::new(f));
        self
    }

    /// Routes outside `/api` (`/files/…`), served beside the site and not behind authorization:
    /// everything they answer is public.
    pub fn site(
        mut self,
        f: impl Fn(&Context) -> ModuleResult<Router> + Send + Sync + 'static,
    ) -> Self {
        self.site.push(Box::new(f));
        self
    }

    pub fn job(mut self, job: JobDef) -> Self {
        self.jobs.push(job);
        self
    }

    pub fn schedule(mut self, job: &'static str, every: Duration, payload: Value) -> Self {
        self.schedules.push(Schedule {
            job,
            every,
            payload,
        });
        self
    }

    pub fn bundle_part(mut self, part: impl BundlePart + 'static) -> Self {
        self.bundle_parts.push(Arc::new(part));
        self
    }
}

/// The modules of a running platform, in dependency order.
pub struct Modules {
    pub list: Vec<ModuleDef>,
}

impl Modules {
    pub fn new(list: Vec<ModuleDef>) -> Self {
        Self { list }
    }

    /// The registry of every module's declarations.
    pub fn registry(&self) -> ModuleResult<stoa_kernel::registry::Registry> {
        let mut declared: Vec<stoa_kernel::model::Module> = self
            .list
            .iter()
            .flat_map(|m| std::iter::once(&m.declarations).chain(&m.links))
            .cloned()
            .collect();
        let mut problems = Vec::new();
        for (key, variants) in self.list.iter().flat_map(|m| &m.variants) {
            let found = declared
                .iter_mut()
                .flat_map(|m| m.entities.iter_mut())
                .find(|e| e.key() == *key);
            match found {
                Some(e) => e.add_variants(variants),
                None => problems.push(format!("variants for {key}, which is not declared")),
            }
        }
        if !problems.is_empty() {
            return Err(ModuleError::Config(problems.join("; ")));
        }
        stoa_kernel::registry::Registry::new(declared).map_err(ModuleError::Config)
    }

    /// Every job, checked for unique names.
    pub fn jobs(&self) -> ModuleResult<HashMap<&'static str, JobDef>> {
        let mut out = HashMap::new();
        for m in &self.list {
            for j in &m.jobs {
                if !j.name.starts_with(&format!("{}.", m.name())) {
                    return Err(ModuleError::Config(format!(
                        "job {} of module {} must be named {}.<job>",
                        j.name,
                        m.name(),
                        m.name()
                    )));
                }
                if out.insert(j.name, j.clone()).is_some() {
                    return Err(ModuleError::Config(format!(
                        "job {} declared twice",
                        j.name
                    )));
                }
            }
        }
        for m in &self.list {
            for s in &m.schedules {
                if !out.contains_key(s.job) {
                    return Err(ModuleError::Config(format!(
                        "schedule of {} names an unknown job",
                        s.job
                    )));
                }
            }
        }
        Ok(out)
    }

    pub fn schedules(&self) -> Vec<Schedule> {
        self.list
            .iter()
            .flat_map(|m| m.schedules.iter().cloned())
            .collect()
    }

    /// Phase 1: every module's services, in order.
    pub fn setup(&self, ctx: &mut Context) -> ModuleResult<()> {
        ctx.bundle_parts = self
            .list
            .iter()
            .flat_map(|m| m.bundle_parts.iter().cloned())
            .collect();
        for m in &self.list {
            for f in &m.setup {
                f(ctx).map_err(|e| e.in_module(m.name()))?;
            }
        }
        Ok(())
    }

    /// Phase 2: every module's custom routes.
    pub fn routes(&self, ctx: &Context) -> ModuleResult<RouteBook<AppState>> {
        let mut book = RouteBook::new();
        for m in &self.list {
            for f in &m.routes {
                book = book.merge(f(ctx).map_err(|e| e.in_module(m.name()))?);
            }
        }
        Ok(book)
    }

    /// Phase 3: every module's seeds.
    pub async fn seed(&self, ctx: &Context) -> Result<()> {
        for m in &self.list {
            for f in &m.seeds {
                f(ctx).await?;
            }
        }
        Ok(())
    }

    /// Every module's routes outside `/api`, merged.
    pub fn site(&self, ctx: &Context) -> ModuleResult<Router> {
        let mut router = Router::new();
        for m in &self.list {
            for f in &m.site {
                router = router.merge(f(ctx).map_err(|e| e.in_module(m.name()))?);
            }
        }
        Ok(router)
    }

    /// The API router wrapped by every module's layers (first listed is innermost).
    pub fn layer(&self, ctx: &Context, mut router: Router) -> ModuleResult<Router> {
        for m in &self.list {
            for f in &m.layers {
                router = f(ctx, router).map_err(|e| e.in_module(m.name()))?;
            }
        }
        Ok(router)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stoa_kernel::model::{Module, model, relation};

    fn low() -> Module {
        Module {
            name: "low",
            words: "",
            entities: vec![
                model("low", "thing", "things")
                    .variants(&["default", "plain"])
                    .build(),
            ],
        }
    }

    /// A higher module's links live under the lower module's name, and its variants join the
    /// lower entity's (and its `variant` field's values); variants for an undeclared entity fail.
    #[test]
    fn links_and_variants_contributed_by_a_higher_module_join_the_registry() {
        let high = ModuleDef::new(Module {
            name: "high",
            words: "",
            entities: vec![model("high", "item", "items").build()],
        })
        .links(Module {
            name: "low",
            words: "",
            entities: vec![
                relation(
                    "low",
                    "things-to-high-items",
                    ("thingId", "low.thing"),
                    ("itemId", "high.item"),
                )
                .follows_guest()
                .build(),
            ],
        })
        .variants("low.thing", &["high-kind"]);
        let reg = Modules::new(vec![ModuleDef::new(low()), high])
            .registry()
            .expect("a registry");
        let link = reg
            .by_key("low.things-to-high-items")
            .expect("the link, under low");
        assert!(link.follows_guest);
        let thing = reg.by_key("low.thing").expect("the thing");
        assert_eq!(thing.variants, ["default", "plain", "high-kind"]);
        let field = thing
            .fields
            .iter()
            .find(|f| f.name == "variant")
            .expect("variant");
        assert!(field.values.contains(&"high-kind"), "{:?}", field.values);

        let stray = ModuleDef::new(Module {
            name: "stray",
            words: "",
            entities: vec![],
        })
        .variants("low.nothing", &["x"]);
        let err = Modules::new(vec![ModuleDef::new(low()), stray])
            .registry()
            .err()
            .expect("refused");
        assert!(err.to_string().contains("low.nothing"), "{err}");
    }
}
