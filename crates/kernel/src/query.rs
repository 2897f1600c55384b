//! The find query: `filters[and][i][column|method|value]`, `orderBy[and][i][column|method]`,
//! `limit`, `offset`, `count`, `search` — parsed from qs bracket notation and checked against the
//! entity's declaration. Every value is typed here; SQL is built from this model only.
//!
//! ```
//! use stoa_kernel::{model::*, query::*};
//! let e = model("blog", "article", "articles").content().field(translations("title")).build();
//! let q = FindQuery::parse(&e, "filters[and][0][column]=title->>en&filters[and][0][method]=eq&filters[and][0][value]=Hi&limit=5").unwrap();
//! assert_eq!(q.filters[0].path.as_deref(), Some("en"));
//! assert_eq!(q.limit, 5);
//! ```

use std::collections::BTreeMap;

pub mod cursor;

use crate::error::{Error, Result};
use crate::model::{Entity, Kind};
use crate::value::{Val, coerce};

pub const DEFAULT_LIMIT: u64 = 100;
pub const MAX_LIMIT: u64 = 1000;
/// The deepest `offset` a list takes: past it, pages go on with the `after` cursor (an offset
/// walks and throws away every row before it; a cursor starts at its row).
pub const MAX_OFFSET: u64 = 10_000;
/// The deepest `offset` a search takes: a search ranks every match before it skips any, so a deep
/// offset costs as much as the whole result (the review's `offset=10000&search=…` held a core for
/// 1.3 s at 30 000 rows). Past it, narrow the search or page with `after`.
pub const MAX_SEARCH_OFFSET: u64 = 1_000;
const MAX_PAIRS: usize = 1000;
const MAX_DEPTH: usize = 6;
const MAX_INDEX: usize = 10_000;

/// A parsed query string: nested maps of strings (arrays are maps keyed by index).
#[derive(Clone, Debug, PartialEq)]
pub enum Qs {
    Str(String),
    Map(BTreeMap<String, Qs>),
}

impl Qs {
    pub fn get(&self, key: &str) -> Option<&Qs> {
        match self {
            Qs::Map(m) => m.get(key),
            Qs::Str(_) => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Qs::Str(s) => Some(s),
            Qs::Map(_) => None,
        }
    }

    /// The entries of an indexed list (`a[0]`, `a[1]`…) in index order; a plain string is a
    /// one-element list.
    pub fn list(&self, what: &str) -> Result<Vec<&Qs>> {
        match self {
            Qs::Str(_) => Ok(vec![self]),
            Qs::Map(m) => {
                let mut items = Vec::with_capacity(m.len());
                for (k, v) in m {
                    let i: usize = k.parse().ok().filter(|i| *i <= MAX_INDEX).ok_or_else(|| {
                        Error::bad_request(format!("{what}: '{k}' is not a list index"))
                    })?;
                    items.push((i, v));
                }
                items.sort_by_key(|(i, _)| *i);
                Ok(items.into_iter().map(|(_, v)| v).collect())
            }
        }
    }
}

/// Splits `a[b][0][c]` into `["a","b","0","c"]`.
fn split_key(key: &str) -> Result<Vec<String>> {
    let bad = || Error::bad_request(format!("malformed query key '{key}'"));
    let (head, mut rest) = match key.find('[') {
        Some(i) => (&key[..i], &key[i..]),
        None => (key, ""),
    };
    if head.is_empty() {
        return Err(bad());
    }
    let mut parts = vec![head.to_owned()];
    while !rest.is_empty() {
        if !rest.starts_with('[') {
            return Err(bad());
        }
        let close = rest.find(']').ok_or_else(bad)?;
        parts.push(rest[1..close].to_owned());
        rest = &rest[close + 1..];
        if parts.len() > MAX_DEPTH {
            return Err(Error::bad_request(format!(
                "query key '{key}' is nested too deeply"
            )));
        }
    }
    Ok(parts)
}

/// Parses a raw query string (qs bracket notation, indices mandatory; `a[]=x` appends).
pub fn parse_qs(raw: &str) -> Result<Qs> {
    let mut root = BTreeMap::new();
    for (n, (k, v)) in form_urlencoded::parse(raw.as_bytes()).enumerate() {
        if n >= MAX_PAIRS {
            return Err(Error::bad_request(format!(
                "more than {MAX_PAIRS} query parameters"
            )));
        }
        let parts = split_key(&k)?;
        insert(&mut root, &parts, v.into_owned(), &k)?;
    }
    Ok(Qs::Map(root))
}

fn insert(
    map: &mut BTreeMap<String, Qs>,
    parts: &[String],
    value: String,
    key: &str,
) -> Result<()> {
    let Some((first, rest)) = parts.split_first() else {
        return Ok(());
    };
    let first = if first.is_empty() {
        map.len().to_string()
    } else {
        first.clone()
    };
    if rest.is_empty() {
        // First value wins for a repeated key, as the original server did.
        map.entry(first).or_insert(Qs::Str(value));
        return Ok(());
    }
    let entry = map.entry(first).or_insert_with(|| Qs::Map(BTreeMap::new()));
    match entry {
        Qs::Map(m) => insert(m, rest, value, key),
        Qs::Str(_) => Err(Error::bad_request(format!(
            "query key '{key}' conflicts with a plain value"
        ))),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Eq,
    Ne,
    Gt,
    Gte,
    Lt,
    Lte,
    Like,
    Ilike,
    NotLike,
    NotIlike,
    InArray,
    NotInArray,
    IsNull,
    IsNotNull,
    /// NULL, missing or empty text (`title->>ru` of a record with no Russian title).
    IsEmpty,
    IsNotEmpty,
}

impl Op {
    pub const ALL: &'static [&'static str] = &[
        "eq",
        "ne",
        "gt",
        "gte",
        "lt",
        "lte",
        "like",
        "ilike",
        "notLike",
        "notIlike",
        "inArray",
        "notInArray",
        "isNull",
        "isNotNull",
        "isEmpty",
        "isNotEmpty",
    ];

    fn parse(s: &str) -> Option<Op> {
        Some(match s {
            "eq" => Op::Eq,
            "ne" | "not" => Op::Ne,
            "gt" => Op::Gt,
            "gte" => Op::Gte,
            "lt" => Op::Lt,
            "lte" => Op::Lte,
            "like" => Op::Like,
            "ilike" => Op::Ilike,
            "notLike" => Op::NotLike,
            "notIlike" => Op::NotIlike,
            "inArray" => Op::InArray,
            "notInArray" => Op::NotInArray,
            "isNull" => Op::IsNull,
            "isNotNull" => Op::IsNotNull,
            "isEmpty" => Op::IsEmpty,
            "isNotEmpty" => Op::IsNotEmpty,
            _ => return None,
        })
    }

    fn is_pattern(self) -> bool {
        matches!(self, Op::Like | Op::Ilike | Op::NotLike | Op::NotIlike)
    }

    fn is_order(self) -> bool {
        matches!(self, Op::Gt | Op::Gte | Op::Lt | Op::Lte)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum FilterValue {
    None,
    One(Val),
    Many(Vec<Val>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Filter {
    /// Index into `Entity::fields`.
    pub field: usize,
    /// A key inside a JSON column (`title->>en` → `en`).
    pub path: Option<String>,
    pub op: Op,
    pub value: FilterValue,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Order {
    pub field: usize,
    pub path: Option<String>,
    pub desc: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FindQuery {
    pub filters: Vec<Filter>,
    pub order: Vec<Order>,
    pub limit: u64,
    pub offset: u64,
    /// Return the total number of matching rows as well.
    pub count: bool,
    /// Free text matched (case-insensitively) against the entity's searchable fields.
    pub search: Option<String>,
    /// References that must point at a visible row (published, not hidden), as `(field index,
    /// SQL condition)`: what the store adds to a visitor's read of a link table whose other side
    /// has drafts or hidden rows.
    pub published_refs: Vec<(usize, String)>,
    /// Keyset paging: the sort values of the last row of the previous page (one per `order` item,
    /// then its `id`); the page starts after that row.
    pub after: Option<Vec<Val>>,
}

impl FindQuery {
    pub fn all() -> Self {
        Self {
            published_refs: Vec::new(),
            after: None,
            filters: Vec::new(),
            order: Vec::new(),
            limit: DEFAULT_LIMIT,
            offset: 0,
            count: false,
            search: None,
        }
    }

    fn field_of(entity: &Entity, name: &str) -> Result<usize> {
        entity
            .field_index(name)
            .ok_or_else(|| Error::internal(format!("{} has no field {name}", entity.key())))
    }

    /// Adds `name op value` for a field of `entity` named in code (a missing field is our bug).
    pub fn filter(
        mut self,
        entity: &Entity,
        name: &str,
        op: Op,
        value: FilterValue,
    ) -> Result<Self> {
        self.filters.push(Filter {
            field: Self::field_of(entity, name)?,
            path: None,
            op,
            value,
        });
        Ok(self)
    }

    /// `name = value`; `Val::Null` matches NULL.
    pub fn eq(self, entity: &Entity, name: &str, value: Val) -> Result<Self> {
        if value == Val::Null {
            self.filter(entity, name, Op::IsNull, FilterValue::None)
        } else {
            self.filter(entity, name, Op::Eq, FilterValue::One(value))
        }
    }

    /// `name` is one of `values`.
    pub fn any_of(self, entity: &Entity, name: &str, values: Vec<Val>) -> Result<Self> {
        self.filter(entity, name, Op::InArray, FilterValue::Many(values))
    }

    /// Sorted by `name` (then by what was added before).
    pub fn sort(mut self, entity: &Entity, name: &str, desc: bool) -> Result<Self> {
        self.order.push(Order {
            field: Self::field_of(entity, name)?,
            path: None,
            desc,
        });
        Ok(self)
    }

    /// Writes out the order a list of `entity` has when none is asked for (`orderIndex` first,
    /// where the entity has one), so a cursor names it and a keyset follows it.
    pub fn spell_implicit_order(&mut self, entity: &Entity) {
        if self.order.is_empty()
            && let Some(field) = entity.field_index("orderIndex")
        {
            self.order.push(Order {
                field,
                path: None,
                desc: false,
            });
        }
    }

    /// At most `limit` rows.
    pub fn take(mut self, limit: u64) -> Self {
        self.limit = limit;
        self
    }

    /// Parses and checks a raw query string against `entity`.
    pub fn parse(entity: &Entity, raw: &str) -> Result<Self> {
        let qs = parse_qs(raw)?;
        if has_nul(&qs) {
            return Err(Error::bad_request(
                "the query must not contain NUL characters (%00)",
            ));
        }
        Self::from_qs(entity, &qs)
    }

    pub fn from_qs(entity: &Entity, qs: &Qs) -> Result<Self> {
        let mut q = Self::all();
        if let Qs::Map(m) = qs
            && let Some(k) = m.keys().find(|k| !PARAMS.contains(&k.as_str()))
        {
            return Err(Error::bad_field(
                k,
                format!(
                    "is not a query parameter of this route; it takes {}",
                    PARAMS.join(", ")
                ),
            ));
        }
        let filters = qs
            .get("filters")
            .map(|f| json_form(f, "filters"))
            .transpose()?;
        if let Some(f) = &filters {
            for (i, item) in group(f, "filters")?.into_iter().enumerate() {
                q.filters.push(
                    parse_filter(entity, item)
                        .map_err(|e| e.with_field_prefix(&format!("filters[and][{i}].")))?,
                );
            }
        }
        let order = qs
            .get("orderBy")
            .map(|o| json_form(o, "orderBy"))
            .transpose()?;
        if let Some(o) = &order {
            for item in group(o, "orderBy")? {
                q.order.push(parse_order(entity, item)?);
            }
        }
        q.spell_implicit_order(entity);
        if let Some(l) = qs.get("limit") {
            q.limit = number(l, "limit")?.min(MAX_LIMIT);
        }
        if let Some(o) = qs.get("offset") {
            q.offset = number(o, "offset")?;
            if q.offset > MAX_OFFSET {
                return Err(Error::bad_field(
                    "offset",
                    format!(
                        "must be at most {MAX_OFFSET}; page further with after=<the X-Next-Cursor header of the previous page>"
                    ),
                ));
            }
        }
        if let Some(a) = qs.get("after") {
            let a = a
                .as_str()
                .ok_or_else(|| Error::bad_field("after", "must be a single value"))?;
            if q.offset > 0 {
                return Err(Error::bad_field(
                    "after",
                    "cannot be combined with offset; a cursor already says where the page starts",
                ));
            }
            q.after = Some(cursor::decode(entity, &q.order, a)?);
        }
        if let Some(c) = qs.get("count") {
            q.count = match c.as_str() {
                Some("true" | "exact" | "1") => true,
                Some("false" | "0" | "") => false,
                _ => return Err(Error::bad_field("count", "must be true or false")),
            };
        }
        if let Some(s) = qs.get("search").and_then(Qs::as_str) {
            let s = s.trim();
            if s.chars().count() > 200 {
                return Err(Error::bad_field("search", "must be at most 200 characters"));
            }
            if !s.is_empty() {
                q.search = Some(s.to_owned());
            }
        }
        if q.search.is_some() && q.offset > MAX_SEARCH_OFFSET {
            return Err(Error::bad_field(
                "offset",
                format!(
                    "must be at most {MAX_SEARCH_OFFSET} with a search; narrow the search, or page with after=<the X-Next-Cursor header of the previous page>"
                ),
            ));
        }
        Ok(q)
    }
}

/// The query parameters of a find route.
pub const PARAMS: &[&str] = &[
    "filters", "orderBy", "limit", "offset", "after", "count", "search",
];

/// `filters` / `orderBy` as sent: bracket notation arrives as a map; a plain value is the JSON
/// form (`filters={"and":[{"column":"slug","method":"eq","value":"x"}]}`, or just the array).
fn json_form(q: &Qs, what: &str) -> Result<Qs> {
    let Qs::Str(s) = q else {
        return Ok(q.clone());
    };
    let v: serde_json::Value = serde_json::from_str(s).map_err(|e| {
        Error::bad_field(
            what,
            format!(
                "is neither {what}[and][i][…] nor JSON such as {{\"and\":[{{\"column\":…}}]}}: {e}"
            ),
        )
    })?;
    let v = match v {
        serde_json::Value::Array(items) => serde_json::json!({ "and": items }),
        other => other,
    };
    let mut pairs = 0;
    Qs::from_json(&v, what, 0, &mut pairs)
}

impl Qs {
    /// A JSON value as the bracket parser would have built it (arrays keyed by index); `null`
    /// is refused (use the `isNull` method), nesting and size are bounded as for brackets.
    pub fn from_json(
        v: &serde_json::Value,
        at: &str,
        depth: usize,
        pairs: &mut usize,
    ) -> Result<Qs> {
        use serde_json::Value as J;
        *pairs += 1;
        if depth > MAX_DEPTH || *pairs > MAX_PAIRS {
            return Err(Error::bad_field(at, "is nested too deeply or too large"));
        }
        Ok(match v {
            J::String(s) => Qs::Str(s.clone()),
            J::Number(n) => Qs::Str(n.to_string()),
            J::Bool(b) => Qs::Str(b.to_string()),
            J::Null => {
                return Err(Error::bad_field(
                    at,
                    "null is not a value here; filter with the isNull method",
                ));
            }
            J::Array(items) => {
                if items.len() > MAX_INDEX {
                    return Err(Error::bad_field(at, "has too many items"));
                }
                let mut m = BTreeMap::new();
                for (i, x) in items.iter().enumerate() {
                    m.insert(
                        i.to_string(),
                        Qs::from_json(x, &format!("{at}[{i}]"), depth + 1, pairs)?,
                    );
                }
                Qs::Map(m)
            }
            J::Object(o) => {
                let mut m = BTreeMap::new();
                for (k, x) in o {
                    m.insert(
                        k.clone(),
                        Qs::from_json(x, &format!("{at}[{k}]"), depth + 1, pairs)?,
                    );
                }
                Qs::Map(m)
            }
        })
    }
}

/// Refuses keys of a filter or order item other than `allowed`.
fn known_keys(item: &Qs, allowed: &[&str], what: &str) -> Result<()> {
    match item {
        Qs::Map(m) => match m.keys().find(|k| !allowed.contains(&k.as_str())) {
            Some(k) => Err(Error::bad_field(
                k,
                format!(
                    "{what} items take {}; '{k}' is not one of them",
                    allowed.join(", ")
                ),
            )),
            None => Ok(()),
        },
        Qs::Str(_) => Err(Error::bad_request(format!(
            "{what} items are objects with {}",
            allowed.join(", ")
        ))),
    }
}

/// Does any key or value of `q` hold a NUL (which no database text can store)?
fn has_nul(q: &Qs) -> bool {
    match q {
        Qs::Str(s) => s.contains('\0'),
        Qs::Map(m) => m.iter().any(|(k, v)| k.contains('\0') || has_nul(v)),
    }
}

fn group<'a>(q: &'a Qs, what: &str) -> Result<Vec<&'a Qs>> {
    let Qs::Map(m) = q else {
        return Err(Error::bad_request(format!(
            "{what} must be {what}[and][i][…]"
        )));
    };
    if let Some(k) = m.keys().find(|k| k.as_str() != "and") {
        return Err(Error::bad_request(format!(
            "{what}[{k}] is not supported; use {what}[and][i][…]"
        )));
    }
    match m.get("and") {
        Some(and) => and.list(what),
        None => Ok(Vec::new()),
    }
}

fn number(q: &Qs, what: &str) -> Result<u64> {
    q.as_str()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .ok_or_else(|| Error::bad_field(what, "must be a non-negative integer"))
}

/// Resolves `column` (optionally `column->>key`) to a filterable field.
fn column(entity: &Entity, raw: &str) -> Result<(usize, Option<String>)> {
    let (name, path) = match raw.split_once("->>") {
        Some((n, p)) => (n.trim(), Some(p.trim().trim_matches('\'').to_owned())),
        None => (raw.trim(), None),
    };
    let i = entity
        .field_index(name)
        .filter(|&i| entity.fields[i].filterable())
        .ok_or_else(|| {
            Error::bad_field(
                "column",
                format!("'{name}' is not a column of {}", entity.key()),
            )
        })?;
    if let Some(p) = &path {
        if !entity.fields[i].kind.is_json() {
            return Err(Error::bad_field(
                "column",
                format!("'{name}' is not a JSON column; '->>' needs one"),
            ));
        }
        if p.is_empty()
            || p.len() > 64
            || !p
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(Error::bad_field(
                "column",
                format!("'{p}' is not a valid key"),
            ));
        }
    }
    Ok((i, path))
}

fn parse_filter(entity: &Entity, item: &Qs) -> Result<Filter> {
    known_keys(item, &["column", "method", "value"], "filters")?;
    let col = item
        .get("column")
        .and_then(Qs::as_str)
        .ok_or_else(|| Error::bad_field("column", "is required"))?;
    let (field_i, path) = column(entity, col)?;
    let method = item
        .get("method")
        .and_then(Qs::as_str)
        .ok_or_else(|| Error::bad_field("method", "is required"))?;
    let op = Op::parse(method).ok_or_else(|| {
        Error::bad_field(
            "method",
            format!("'{method}' is not one of: {}", Op::ALL.join(", ")),
        )
    })?;
    let field = &entity.fields[field_i];
    let text_like = path.is_some() || matches!(field.kind, Kind::Text | Kind::Enum);
    if field.kind.is_json() && path.is_none() && !matches!(op, Op::IsNull | Op::IsNotNull) {
        return Err(Error::bad_field(
            "column",
            format!(
                "filter a language or key of '{}' with '{}->>en'",
                field.name, field.name
            ),
        ));
    }
    if matches!(op, Op::IsEmpty | Op::IsNotEmpty) && !text_like {
        return Err(Error::bad_field(
            "method",
            format!("'{method}' works on text columns and JSON keys only"),
        ));
    }
    if op.is_pattern() && !text_like {
        return Err(Error::bad_field(
            "method",
            format!("'{method}' works on text columns only"),
        ));
    }
    if op.is_order() && field.kind == Kind::Bool {
        return Err(Error::bad_field(
            "method",
            format!("'{method}' does not apply to a boolean"),
        ));
    }
    let one = |q: &Qs| -> Result<Val> {
        let s = q
            .as_str()
            .ok_or_else(|| Error::bad_field("value", "must be a single value"))?;
        if path.is_some() || op.is_pattern() {
            return Ok(Val::Text(s.to_owned()));
        }
        filter_value(entity, field_i, s)
    };
    let value = match op {
        Op::IsNull | Op::IsNotNull | Op::IsEmpty | Op::IsNotEmpty => FilterValue::None,
        Op::InArray | Op::NotInArray => match item.get("value") {
            None => FilterValue::Many(Vec::new()),
            Some(Qs::Str(s)) if s.is_empty() => FilterValue::Many(Vec::new()),
            // A comma list (`value=a,b`); values holding a comma go indexed or in the JSON form.
            Some(Qs::Str(s)) => FilterValue::Many(
                s.split(',')
                    .map(|p| one(&Qs::Str(p.trim().to_owned())))
                    .collect::<Result<_>>()?,
            ),
            Some(v) => FilterValue::Many(
                v.list("value")?
                    .into_iter()
                    .map(one)
                    .collect::<Result<_>>()?,
            ),
        },
        _ => {
            let v = item
                .get("value")
                .ok_or_else(|| Error::bad_field("value", "is required"))?;
            let v = one(v)?;
            if let (true, Val::Text(s)) = (op.is_pattern(), &v) {
                FilterValue::One(Val::Text(if s.contains('%') {
                    s.clone()
                } else {
                    format!("%{s}%")
                }))
            } else {
                FilterValue::One(v)
            }
        }
    };
    Ok(Filter {
        field: field_i,
        path,
        op,
        value,
    })
}

/// Coerces a filter value string by the field's declared kind.
fn filter_value(entity: &Entity, i: usize, s: &str) -> Result<Val> {
    let f = &entity.fields[i];
    let json = match f.kind {
        Kind::Int => serde_json::Value::String(s.to_owned()),
        Kind::Text | Kind::Enum => return Ok(Val::Text(s.to_owned())),
        _ => serde_json::Value::String(s.to_owned()),
    };
    // Filters compare against any value, so enum membership and text formats are not checked.
    let mut loose = f.clone();
    loose.required = true;
    coerce(&loose, &json).map_err(|m| Error::bad_field("value", format!("'{s}' {m}")))
}

fn parse_order(entity: &Entity, item: &Qs) -> Result<Order> {
    known_keys(item, &["column", "method"], "orderBy")?;
    let col = item
        .get("column")
        .and_then(Qs::as_str)
        .ok_or_else(|| Error::bad_field("orderBy.column", "is required"))?;
    let (field, path) = column(entity, col)?;
    if path.is_some() || !entity.sortable(&entity.fields[field]) {
        return Err(Error::bad_field(
            "orderBy.column",
            format!(
                "'{col}' is not a sort column of {}; lists sort on indexed columns only: {}",
                entity.key(),
                entity.sortable_names().join(", ")
            ),
        ));
    }
    let desc = match item.get("method").and_then(Qs::as_str).unwrap_or("asc") {
        "asc" => false,
        "desc" => true,
        other => {
            return Err(Error::bad_field(
                "orderBy.method",
                format!("'{other}' is not asc or desc"),
            ));
        }
    };
    Ok(Order { field, path, desc })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::*;
    use proptest::prelude::*;

    fn article() -> Entity {
        model("blog", "article", "articles")
            .content()
            .field(translations("title"))
            .field(int("rank").list())
            .field(boolean("pinned"))
            .field(text("password").secret())
            .build()
    }

    #[test]
    fn brackets_with_indices_build_ordered_lists() {
        let q = parse_qs("a[and][1][x]=2&a[and][0][x]=1&a[and][10][x]=3")
            .unwrap_or(Qs::Str(String::new()));
        let items = q
            .get("a")
            .map(|a| group(a, "a"))
            .transpose()
            .ok()
            .flatten()
            .unwrap_or_default();
        let xs: Vec<_> = items
            .iter()
            .filter_map(|i| i.get("x").and_then(Qs::as_str))
            .collect();
        assert_eq!(xs, ["1", "2", "3"]);
    }

    #[test]
    fn in_array_values_are_typed_by_the_column() {
        let e = article();
        let id = uuid::Uuid::now_v7();
        let q = FindQuery::parse(
            &e,
            &format!(
                "filters[and][0][column]=id&filters[and][0][method]=inArray&filters[and][0][value][0]={id}"
            ),
        );
        assert_eq!(
            q.map(|q| q.filters[0].value.clone()).ok(),
            Some(FilterValue::Many(vec![Val::Uuid(id)]))
        );
    }

    #[test]
    fn unknown_secret_and_malformed_inputs_are_400() {
        let e = article();
        for raw in [
            "filters[and][0][column]=nope&filters[and][0][method]=eq&filters[and][0][value]=1",
            "filters[and][0][column]=password&filters[and][0][method]=eq&filters[and][0][value]=1",
            "filters[and][0][column]=rank&filters[and][0][method]=eq&filters[and][0][value]=abc",
            "filters[and][0][column]=id&filters[and][0][method]=eq&filters[and][0][value]=abc",
            "filters[and][0][column]=pinned&filters[and][0][method]=eq&filters[and][0][value]=yes",
            "filters[and][0][column]=slug&filters[and][0][method]=between&filters[and][0][value]=1",
            "filters[or][0][column]=slug",
            "filters[and][0][column]=title&filters[and][0][method]=eq&filters[and][0][value]=x",
            "orderBy[and][0][column]=slug&orderBy[and][0][method]=up",
            "limit=-1",
            "filters[and]x=1",
            "search=a%00b",
            "filters[and][0][column]=slug&filters[and][0][method]=eq&filters[and][0][value]=%00",
        ] {
            let r = FindQuery::parse(&e, raw);
            assert!(matches!(r, Err(Error::BadRequest { .. })), "{raw}: {r:?}");
        }
    }

    #[test]
    fn unknown_parameters_and_item_keys_are_400_naming_them() {
        let e = article();
        for (raw, name) in [
            // The nested-object mistake: a client serialising {filters: {and: [...]}} flat.
            ("and=%5Bobject%20Object%5D", "and"),
            ("filter[and][0][column]=slug", "filter"),
            ("limt=5", "limt"),
            (
                "filters[and][0][colum]=slug&filters[and][0][method]=eq&filters[and][0][value]=x",
                "filters[and][0].colum",
            ),
            (
                "orderBy[and][0][column]=slug&orderBy[and][0][dir]=asc",
                "dir",
            ),
            ("count=yes", "count"),
            ("filters=%7Bnot%20json", "filters"),
        ] {
            match FindQuery::parse(&e, raw) {
                Err(Error::BadRequest { fields, .. }) => {
                    assert!(fields.contains_key(name), "{raw}: {fields:?}")
                }
                other => panic!("{raw}: {other:?}"),
            }
        }
    }

    #[test]
    fn the_json_form_means_what_the_brackets_mean() {
        let e = article();
        let enc = |s: &str| form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
        for (brackets, json) in [
            (
                "filters[and][0][column]=title->>en&filters[and][0][method]=eq&filters[and][0][value]=Hi&orderBy[and][0][column]=rank&orderBy[and][0][method]=desc",
                format!(
                    "filters={}&orderBy={}",
                    enc(r#"{"and":[{"column":"title->>en","method":"eq","value":"Hi"}]}"#),
                    enc(r#"[{"column":"rank","method":"desc"}]"#)
                ),
            ),
            (
                "filters[and][0][column]=rank&filters[and][0][method]=inArray&filters[and][0][value][0]=1&filters[and][0][value][1]=2",
                format!(
                    "filters={}",
                    enc(r#"[{"column":"rank","method":"inArray","value":[1,2]}]"#)
                ),
            ),
            (
                "filters[and][0][column]=rank&filters[and][0][method]=inArray&filters[and][0][value]=1,2",
                format!(
                    "filters={}",
                    enc(r#"[{"column":"rank","method":"inArray","value":["1","2"]}]"#)
                ),
            ),
        ] {
            let a = FindQuery::parse(&e, brackets).map_err(|e| format!("{brackets}: {e:?}"));
            let b = FindQuery::parse(&e, &json).map_err(|e| format!("{json}: {e:?}"));
            assert_eq!(a, b);
            assert!(a.is_ok());
        }
        let null = format!(
            "filters={}",
            enc(r#"[{"column":"rank","method":"eq","value":null}]"#)
        );
        assert!(FindQuery::parse(&e, &null).is_err());
    }

    #[test]
    fn limit_is_capped_and_like_is_wrapped() {
        let e = article();
        let q = FindQuery::parse(
            &e,
            "limit=1000000&filters[and][0][column]=slug&filters[and][0][method]=ilike&filters[and][0][value]=Far",
        );
        let q = q.unwrap_or_else(|_| FindQuery::all());
        assert_eq!(q.limit, MAX_LIMIT);
        assert_eq!(
            q.filters[0].value,
            FilterValue::One(Val::Text("%Far%".into()))
        );
    }

    proptest! {
        #[test]
        fn the_parser_never_panics_on_any_query_string(s in ".{0,200}") {
            let e = article();
            let _ = FindQuery::parse(&e, &s);
        }

        #[test]
        fn bracket_soup_never_panics(s in "[a-z\\[\\]0-9=&%]{0,120}") {
            let _ = parse_qs(&s);
        }
    }
}
