//! A small pool of QuickJS engines that run the public site's server script
//! (`web/dist/server/render.js`, built from `web/src/entry-server.tsx`). Each engine lives on its
//! own thread, loads the script once and renders one page at a time; a render that runs past its
//! budget is interrupted, and an engine that failed that way is rebuilt before its next page.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use rquickjs::{Context, Function, Object, Runtime};
use tokio::sync::oneshot;

/// Why a page was not rendered (the caller then sends the client-rendered shell).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RenderError {
    /// Every engine is busy and the queue is full.
    Busy,
    /// The render ran past its budget (or waited in the queue past it).
    Timeout,
    /// The script threw, or the engine failed.
    Script(String),
    /// The pool is shut down.
    Closed,
}

impl std::fmt::Display for RenderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RenderError::Busy => f.write_str("every render engine is busy"),
            RenderError::Timeout => f.write_str("the render ran past its time budget"),
            RenderError::Script(m) => write!(f, "the render script failed: {m}"),
            RenderError::Closed => f.write_str("the render engines are stopped"),
        }
    }
}

impl std::error::Error for RenderError {}

/// How the pool runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// Engines (threads); each renders one page at a time.
    pub engines: usize,
    /// Longest one render may run.
    pub budget: Duration,
    /// Most pages waiting for an engine; past it a render is refused at once ([`RenderError::Busy`]).
    pub queue: usize,
    /// Memory one engine may use.
    pub memory: usize,
    /// How long an engine waits for a page before it ends (and gives its memory back).
    pub idle: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            engines: 2,
            budget: Duration::from_millis(250),
            queue: 64,
            memory: 128 << 20,
            idle: Duration::from_secs(60),
        }
    }
}

/// Each engine's "the script is loaded" (or why not).
type Ready = Receiver<Result<(), String>>;

/// How much longer than its budget a page may wait when no engine has loaded yet: the first
/// page after a start (or after the engines ended idle) waits for one to load.
const FIRST_LOAD: Duration = Duration::from_secs(5);

struct Job {
    /// The page's boot data as JSON, and the requested path.
    input: (String, String),
    deadline: Instant,
    reply: oneshot::Sender<Result<String, RenderError>>,
}

/// The pool. Cheap to share (`Arc`); dropping the last handle stops the engines.
///
/// Engines start when pages need them, not with the server: the first page starts one, and
/// another starts (one at a time, up to [`Options::engines`]) when a page finds every engine
/// started so far busy. An engine with no page for [`Options::idle`] ends, and gives its memory
/// back (each holds ~12 MB with the site's script loaded).
pub struct Renderer {
    budget: Duration,
    renders: AtomicU64,
    failures: AtomicU64,
    pool: Arc<Pool>,
}

/// What the engine threads share.
struct Pool {
    /// Where pages are sent; `None` once closed (by the renderer, or by an engine that could
    /// not load the script).
    tx: Mutex<Option<SyncSender<Job>>>,
    rx: Mutex<Receiver<Job>>,
    /// The script, gzipped once the start is past (a third of its 0.75 MB, held while no engine
    /// runs): each engine inflates it as it starts, so every engine runs the script the server
    /// started with.
    source: Arc<Source>,
    script: String,
    memory: usize,
    most: usize,
    idle: Duration,
    /// Engines started and not ended (loading or loaded).
    started: AtomicUsize,
    /// Of those, the ones that finished loading (or failed to).
    settled: AtomicUsize,
    /// Pages sent and not answered yet.
    waiting: AtomicUsize,
    next_id: AtomicUsize,
}

/// The server script as the pool keeps it: as read until a thread beside the start has gzipped
/// it (level 6 took 10–15 ms of a 100 ms start on the main thread), then gzipped.
struct Source(RwLock<Kept>);

enum Kept {
    Gzipped(Vec<u8>),
    /// Not gzipped yet, or the encoder failed.
    Plain(String),
}

impl Source {
    fn new(text: String) -> Arc<Self> {
        let source = Arc::new(Source(RwLock::new(Kept::Plain(text))));
        let s = source.clone();
        // No thread to spare: it stays as read (0.75 MB more held, nothing lost).
        let _ = std::thread::Builder::new()
            .name("stoa-script-gzip".into())
            .spawn(move || s.gzip());
        source
    }

    fn gzip(&self) {
        use std::io::Write;
        let bytes = {
            let Ok(kept) = self.0.read() else { return };
            let Kept::Plain(text) = &*kept else { return };
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
            match gz.write_all(text.as_bytes()).and_then(|()| gz.finish()) {
                Ok(mut bytes) => {
                    bytes.shrink_to_fit();
                    bytes
                }
                Err(_) => return,
            }
        };
        if let Ok(mut kept) = self.0.write() {
            *kept = Kept::Gzipped(bytes);
        }
    }

    /// The script's text (~2 ms to inflate, once per engine started).
    fn text(&self) -> Result<String, String> {
        use std::io::Read;
        let kept = self
            .0
            .read()
            .map_err(|_| "the kept script is poisoned".to_owned())?;
        match &*kept {
            Kept::Plain(t) => Ok(t.clone()),
            Kept::Gzipped(b) => {
                let mut t = String::new();
                flate2::read::GzDecoder::new(&b[..])
                    .read_to_string(&mut t)
                    .map_err(|e| format!("the kept script does not inflate: {e}"))?;
                Ok(t)
            }
        }
    }
}

/// One engine: a runtime, its context with the script loaded, and the deadline its interrupt
/// handler watches.
struct Engine {
    runtime: Runtime,
    context: Context,
    /// Milliseconds after `epoch` past which the running render is interrupted (0: none).
    deadline: Arc<AtomicU64>,
    interrupted: Arc<AtomicBool>,
    epoch: Instant,
}

impl Engine {
    fn new(source: &str, memory: usize) -> Result<Self, String> {
        let runtime = Runtime::new().map_err(|e| e.to_string())?;
        runtime.set_memory_limit(memory);
        runtime.set_max_stack_size(4 << 20);
        let deadline = Arc::new(AtomicU64::new(0));
        let interrupted = Arc::new(AtomicBool::new(false));
        let epoch = Instant::now();
        {
            let (deadline, interrupted) = (deadline.clone(), interrupted.clone());
            runtime.set_interrupt_handler(Some(Box::new(move || {
                let d = deadline.load(Ordering::Relaxed);
                let stop = d != 0 && epoch.elapsed().as_millis() as u64 > d;
                if stop {
                    interrupted.store(true, Ordering::Relaxed);
                }
                stop
            })));
        }
        let context = Context::full(&runtime).map_err(|e| e.to_string())?;
        context.with(|ctx| -> Result<(), String> {
            ctx.eval::<(), _>(source.as_bytes().to_vec())
                .map_err(|e| describe(&ctx, e))?;
            let ssr: Object = ctx
                .globals()
                .get("StoaSsr")
                .map_err(|_| "the script defines no `StoaSsr`".to_owned())?;
            let _: Function = ssr
                .get("render")
                .map_err(|_| "`StoaSsr.render` is not a function".to_owned())?;
            Ok(())
        })?;
        Ok(Self {
            runtime,
            context,
            deadline,
            interrupted,
            epoch,
        })
    }

    fn render(
        &self,
        (boot, path): &(String, String),
        deadline: Instant,
    ) -> Result<String, RenderError> {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(RenderError::Timeout);
        }
        self.interrupted.store(false, Ordering::Relaxed);
        self.deadline.store(
            (self.epoch.elapsed() + left).as_millis().max(1) as u64,
            Ordering::Relaxed,
        );
        let out = self.context.with(|ctx| {
            let run = || -> rquickjs::Result<String> {
                let ssr: Object = ctx.globals().get("StoaSsr")?;
                let render: Function = ssr.get("render")?;
                render.call((boot.as_str(), path.as_str()))
            };
            let out = run().map_err(|e| describe(&ctx, e));
            // What the script logged during the render.
            if let Ok(logs) = ctx.globals().get::<_, rquickjs::Array>("__stoaLogs") {
                for line in logs.iter::<String>().flatten() {
                    tracing::warn!(target: "stoa::render", "{line}");
                }
                let _ = logs.as_object().set("length", 0);
            }
            out
        });
        self.deadline.store(0, Ordering::Relaxed);
        while self.runtime.is_job_pending() {
            if self.runtime.execute_pending_job().is_err() {
                break;
            }
        }
        match out {
            Ok(html) => Ok(html),
            Err(_) if self.interrupted.load(Ordering::Relaxed) => Err(RenderError::Timeout),
            Err(m) => Err(RenderError::Script(m)),
        }
    }
}

fn describe(ctx: &rquickjs::Ctx<'_>, e: rquickjs::Error) -> String {
    if !matches!(e, rquickjs::Error::Exception) {
        return e.to_string();
    }
    let v = ctx.catch();
    if let Some(ex) = v.as_exception() {
        let msg = ex.message().unwrap_or_default();
        let stack = ex.stack().unwrap_or_default();
        let first = stack.lines().next().unwrap_or_default().trim().to_owned();
        return if first.is_empty() {
            msg
        } else {
            format!("{msg} ({first})")
        };
    }
    v.as_string()
        .and_then(|s| s.to_string().ok())
        .unwrap_or_else(|| format!("{v:?}"))
}

impl Renderer {
    /// Starts every engine with the script at `script` and waits until each has loaded it.
    /// `Ok(None)` when there is no script (the web UI is not built, or was built without its server
    /// entry): pages are then rendered in the browser only. An error when the script is there but
    /// does not load.
    pub fn start(script: &Path, options: Options) -> Result<Option<Arc<Self>>, String> {
        let engines = options.engines.max(1);
        let Some(renderer) = Self::pool(script, options)? else {
            return Ok(None);
        };
        for _ in 0..engines {
            let ready = renderer.pool.grow()?;
            match ready.recv() {
                Ok(Ok(())) => {}
                Ok(Err(e)) => {
                    renderer.close();
                    return Err(format!("{}: {e}", script.display()));
                }
                Err(_) => return Err("a render engine stopped while starting".to_owned()),
            }
        }
        Ok(Some(renderer))
    }

    /// The pool without its engines: the first page starts one (and waits for it to load the
    /// script), more start as pages find them busy. A script that does not load is logged when
    /// the first engine tries, the renderer closes, and pages render in the browser.
    pub fn launch(script: &Path, options: Options) -> Result<Option<Arc<Self>>, String> {
        Self::pool(script, options)
    }

    /// Reads the script; no engine runs yet.
    fn pool(script: &Path, options: Options) -> Result<Option<Arc<Self>>, String> {
        let source = match std::fs::read_to_string(script) {
            Ok(s) => Source::new(s),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("{}: {e}", script.display())),
        };
        let (tx, rx) = std::sync::mpsc::sync_channel::<Job>(options.queue.max(1));
        Ok(Some(Arc::new(Self {
            budget: options.budget,
            renders: AtomicU64::new(0),
            failures: AtomicU64::new(0),
            pool: Arc::new(Pool {
                tx: Mutex::new(Some(tx)),
                rx: Mutex::new(rx),
                source,
                script: script.display().to_string(),
                memory: options.memory,
                most: options.engines.max(1),
                idle: options.idle,
                started: AtomicUsize::new(0),
                settled: AtomicUsize::new(0),
                waiting: AtomicUsize::new(0),
                next_id: AtomicUsize::new(0),
            }),
        })))
    }

    /// Renders one page: `StoaSsr.render(boot, path)` with the page's boot data (JSON, what the
    /// browser reads from `<script id="stoa-page">`) and the requested path (`/ru/blog`).
    pub async fn render(&self, boot: String, path: String) -> Result<String, RenderError> {
        let (reply, rx) = oneshot::channel();
        // No engine loaded yet: this page waits for one to load, once.
        let first = self.pool.settled.load(Ordering::SeqCst) == 0;
        let job = Job {
            input: (boot, path),
            deadline: Instant::now()
                + self.budget
                + if first { FIRST_LOAD } else { Duration::ZERO },
            reply,
        };
        let waiting = self.pool.waiting.fetch_add(1, Ordering::SeqCst) + 1;
        let sent = match self.pool.tx.lock() {
            Ok(g) => match g.as_ref() {
                Some(tx) => tx.try_send(job),
                None => Err(TrySendError::Disconnected(job)),
            },
            Err(_) => Err(TrySendError::Disconnected(job)),
        };
        let out = match sent {
            Ok(()) => {
                self.pool.wanted(waiting);
                rx.await.unwrap_or(Err(RenderError::Closed))
            }
            Err(TrySendError::Full(_)) => Err(RenderError::Busy),
            Err(TrySendError::Disconnected(_)) => Err(RenderError::Closed),
        };
        self.pool.waiting.fetch_sub(1, Ordering::SeqCst);
        self.renders.fetch_add(1, Ordering::Relaxed);
        if out.is_err() {
            self.failures.fetch_add(1, Ordering::Relaxed);
        }
        out
    }

    /// Renders attempted, and how many of them failed.
    pub fn counts(&self) -> (u64, u64) {
        (
            self.renders.load(Ordering::Relaxed),
            self.failures.load(Ordering::Relaxed),
        )
    }

    /// Engines running now (loading or loaded).
    pub fn engines(&self) -> usize {
        self.pool.started.load(Ordering::SeqCst)
    }

    /// Stops the engines once the pages in the queue are done.
    pub fn close(&self) {
        self.pool.close();
    }
}

impl Drop for Renderer {
    fn drop(&mut self) {
        self.close();
    }
}

impl Pool {
    /// A new engine with the kept script loaded.
    fn engine(&self) -> Result<Engine, String> {
        Engine::new(&self.source.text()?, self.memory)
    }

    /// No more pages: engines end once the queue is empty.
    fn close(&self) {
        if let Ok(mut g) = self.tx.lock() {
            g.take();
        }
    }

    /// After a page was queued with `waiting` pages in flight: starts an engine when none runs,
    /// or when more pages wait than engines run and none is loading (one at a time, so a burst
    /// never loads every engine at once on a small machine).
    fn wanted(self: &Arc<Self>, waiting: usize) {
        let started = self.started.load(Ordering::SeqCst);
        let loading = started > self.settled.load(Ordering::SeqCst);
        if started == 0 || (waiting > started && started < self.most && !loading) {
            let _ = self.grow();
        }
    }

    /// Starts one engine (unless [`Options::engines`] already run); it says on the returned
    /// channel once it has loaded the script (or failed to).
    fn grow(self: &Arc<Self>) -> Result<Ready, String> {
        let (ready_tx, ready_rx) = std::sync::mpsc::channel::<Result<(), String>>();
        let mut n = self.started.load(Ordering::SeqCst);
        loop {
            if n >= self.most {
                return Ok(ready_rx);
            }
            match self
                .started
                .compare_exchange(n, n + 1, Ordering::SeqCst, Ordering::SeqCst)
            {
                Ok(_) => break,
                Err(now) => n = now,
            }
        }
        let pool = self.clone();
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        std::thread::Builder::new()
            .name(format!("stoa-render-{id}"))
            .stack_size(16 << 20)
            .spawn(move || run(&pool, &ready_tx))
            .map_err(|e| {
                self.started.fetch_sub(1, Ordering::SeqCst);
                format!("starting a render engine: {e}")
            })?;
        Ok(ready_rx)
    }

    /// The next page, or `None` when this engine should end: the pool is closed, or no page came
    /// for [`Options::idle`] (and none came while it was ending).
    fn next(&self) -> Option<Job> {
        let got = match self.rx.lock() {
            Ok(r) => r.recv_timeout(self.idle),
            Err(_) => return None,
        };
        match got {
            Ok(j) => Some(j),
            Err(RecvTimeoutError::Disconnected) => None,
            Err(RecvTimeoutError::Timeout) => {
                // Counted out first, then a last look: a page sent meanwhile either is seen
                // here, or its sender sees no engine and starts one.
                self.started.fetch_sub(1, Ordering::SeqCst);
                let late = self.rx.lock().ok().and_then(|r| r.try_recv().ok());
                if late.is_some() {
                    self.started.fetch_add(1, Ordering::SeqCst);
                } else {
                    self.settled.fetch_sub(1, Ordering::SeqCst);
                    tracing::debug!(script = %self.script, "a render engine ended idle");
                }
                late
            }
        }
    }
}

fn run(pool: &Pool, ready: &std::sync::mpsc::Sender<Result<(), String>>) {
    let built = pool.engine();
    pool.settled.fetch_add(1, Ordering::SeqCst);
    let mut engine = match built {
        Ok(e) => {
            let _ = ready.send(Ok(()));
            Some(e)
        }
        Err(e) => {
            tracing::error!(script = %pool.script, error = %e, "the server script does not load: public pages render in the browser");
            // Closed: no page waits for an engine that cannot be built.
            pool.close();
            while let Some(job) = pool.rx.lock().ok().and_then(|r| r.try_recv().ok()) {
                let _ = job.reply.send(Err(RenderError::Closed));
            }
            let _ = ready.send(Err(e));
            return;
        }
    };
    while let Some(job) = pool.next() {
        if job.reply.is_closed() {
            continue;
        }
        if engine.is_none() {
            engine = pool
                .engine()
                .map_err(|e| tracing::error!(error = %e, "rebuilding a render engine failed"))
                .ok();
        }
        let out = match engine.as_ref() {
            Some(e) => e.render(&job.input, job.deadline),
            None => Err(RenderError::Script("the engine could not be built".into())),
        };
        // An engine stopped mid-render (time, memory) may hold half-changed state: a new one
        // serves the next page.
        let broken = match &out {
            Err(RenderError::Timeout) => true,
            Err(RenderError::Script(m)) => {
                m.contains("out of memory") || m.contains("stack overflow")
            }
            _ => false,
        };
        if broken {
            engine = None;
        }
        let _ = job.reply.send(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn the_kept_script_is_gzipped_beside_the_start_and_reads_back_the_same() {
        let text: String = (0..20_000).map(|i| format!("var a{i} = {i};\n")).collect();
        let source = Source::new(text.clone());
        assert_eq!(
            source.text().unwrap(),
            text,
            "readable before it is gzipped"
        );
        let deadline = Instant::now() + Duration::from_secs(10);
        while matches!(&*source.0.read().unwrap(), Kept::Plain(_)) {
            assert!(Instant::now() < deadline, "gzipped within 10 s");
            std::thread::sleep(Duration::from_millis(5));
        }
        match &*source.0.read().unwrap() {
            Kept::Gzipped(b) => assert!(b.len() < text.len() / 3, "{} bytes", b.len()),
            Kept::Plain(_) => unreachable!(),
        }
        assert_eq!(source.text().unwrap(), text, "the same text once gzipped");
    }

    const SCRIPT: &str = r#"
      var __stoaLogs = [];
      var StoaSsr = { render: function (input) {
        var i = JSON.parse(input);
        if (i.loop) { for (;;) {} }
        if (i.fail) { throw new Error("widget broke"); }
        if (i.log) { __stoaLogs.push("warn: " + i.log); }
        return "<p>" + i.text + "</p>";
      } };
    "#;

    fn script(name: &str, body: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("stoa-render-{}-{name}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let p = dir.join("render.js");
        std::fs::write(&p, body).unwrap_or_default();
        p
    }

    fn opts(engines: usize, budget_ms: u64) -> Options {
        Options {
            engines,
            budget: Duration::from_millis(budget_ms),
            ..Options::default()
        }
    }

    #[tokio::test]
    async fn renders_and_recovers_from_timeouts_and_throws() {
        let Ok(Some(r)) = Renderer::start(&script("ok", SCRIPT), opts(1, 200)) else {
            panic!("the pool did not start");
        };
        assert_eq!(
            r.render(r#"{"text":"a"}"#.into(), String::new()).await,
            Ok("<p>a</p>".into())
        );
        let started = Instant::now();
        assert_eq!(
            r.render(r#"{"loop":true}"#.into(), String::new()).await,
            Err(RenderError::Timeout)
        );
        assert!(started.elapsed() < Duration::from_secs(2));
        // The engine that was interrupted is replaced: the next page renders.
        assert_eq!(
            r.render(r#"{"text":"b","log":"x"}"#.into(), String::new())
                .await,
            Ok("<p>b</p>".into())
        );
        match r.render(r#"{"fail":true}"#.into(), String::new()).await {
            Err(RenderError::Script(m)) => assert!(m.contains("widget broke"), "{m}"),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            r.render(r#"{"text":"c"}"#.into(), String::new()).await,
            Ok("<p>c</p>".into())
        );
        assert_eq!(r.counts(), (5, 2));
        r.close();
        assert_eq!(
            r.render("{}".into(), String::new()).await,
            Err(RenderError::Closed)
        );
    }

    #[tokio::test]
    async fn a_full_queue_refuses_at_once() {
        let Ok(Some(r)) = Renderer::start(
            &script("busy", SCRIPT),
            Options {
                engines: 1,
                budget: Duration::from_millis(300),
                queue: 1,
                ..Options::default()
            },
        ) else {
            panic!("the pool did not start");
        };
        let r2 = r.clone();
        let slow =
            tokio::spawn(async move { r2.render(r#"{"loop":true}"#.into(), String::new()).await });
        tokio::time::sleep(Duration::from_millis(50)).await;
        let r3 = r.clone();
        let queued =
            tokio::spawn(async move { r3.render(r#"{"text":"q"}"#.into(), String::new()).await });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(
            r.render(r#"{"text":"x"}"#.into(), String::new()).await,
            Err(RenderError::Busy)
        );
        assert_eq!(slow.await.ok(), Some(Err(RenderError::Timeout)));
        // The queued page waited past its own budget or was served; never lost.
        let q = queued.await.ok();
        assert!(
            matches!(q, Some(Ok(_)) | Some(Err(RenderError::Timeout))),
            "{q:?}"
        );
    }

    #[test]
    fn a_missing_script_means_no_server_rendering_and_a_bad_one_is_an_error() {
        let none = Renderer::start(Path::new("/nonexistent/stoa/render.js"), opts(1, 100));
        assert!(matches!(none, Ok(None)));
        let bad = Renderer::start(&script("bad", "var x = ;"), opts(1, 100));
        assert!(bad.is_err());
        let empty = Renderer::start(&script("empty", "var y = 1;"), opts(1, 100));
        assert!(
            matches!(&empty, Err(m) if m.contains("StoaSsr")),
            "{:?}",
            empty.err()
        );
    }

    /// `launch` starts no engine: the first page starts one and waits for it to load the script;
    /// a script that does not load closes the renderer, and pages are refused (they then render
    /// in the browser) instead of waiting.
    #[tokio::test]
    async fn launched_engines_start_with_the_first_page() {
        let Ok(Some(r)) = Renderer::launch(&script("launch", SCRIPT), opts(2, 2_000)) else {
            panic!("the pool did not launch");
        };
        assert_eq!(r.engines(), 0, "nothing runs before a page is asked for");
        assert_eq!(
            r.render(r#"{"text":"first"}"#.into(), String::new()).await,
            Ok("<p>first</p>".into())
        );
        assert_eq!(r.engines(), 1, "one page, one engine");
        let Ok(Some(bad)) = Renderer::launch(&script("launch-bad", "var x = ;"), opts(2, 2_000))
        else {
            panic!("a script that is there launches (and fails when a page needs it)");
        };
        let started = Instant::now();
        assert_eq!(
            bad.render(r#"{"text":"x"}"#.into(), String::new()).await,
            Err(RenderError::Closed)
        );
        assert!(started.elapsed() < Duration::from_secs(2));
        assert_eq!(
            bad.render(r#"{"text":"y"}"#.into(), String::new()).await,
            Err(RenderError::Closed),
            "closed for good"
        );
        assert!(matches!(
            Renderer::launch(Path::new("/nonexistent/stoa/render.js"), opts(1, 100)),
            Ok(None)
        ));
    }

    /// A second engine starts when a page finds the first busy; engines with no page for their
    /// idle time end, and the next page starts one again.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn engines_grow_with_the_load_and_end_idle() {
        let Ok(Some(r)) = Renderer::launch(
            &script("grow", SCRIPT),
            Options {
                idle: Duration::from_millis(300),
                ..opts(2, 400)
            },
        ) else {
            panic!("the pool did not launch");
        };
        assert_eq!(
            r.render(r#"{"text":"a"}"#.into(), String::new()).await,
            Ok("<p>a</p>".into())
        );
        assert_eq!(r.engines(), 1);
        // The one engine is held by a page that runs past its budget: the next page starts another.
        let r2 = r.clone();
        let slow =
            tokio::spawn(async move { r2.render(r#"{"loop":true}"#.into(), String::new()).await });
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(
            r.render(r#"{"text":"b"}"#.into(), String::new()).await,
            Ok("<p>b</p>".into()),
            "served by a second engine while the first is busy"
        );
        assert_eq!(r.engines(), 2);
        assert_eq!(slow.await.ok(), Some(Err(RenderError::Timeout)));
        // Idle past 300 ms: both end.
        let deadline = Instant::now() + Duration::from_secs(5);
        while r.engines() > 0 {
            assert!(
                Instant::now() < deadline,
                "{} engines still run",
                r.engines()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(
            r.render(r#"{"text":"c"}"#.into(), String::new()).await,
            Ok("<p>c</p>".into()),
            "the next page starts one again"
        );
        assert_eq!(r.engines(), 1);
    }
}
