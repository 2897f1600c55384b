//! The entity model: one declaration per entity drives storage, validation, the API, OpenAPI,
//! `/api/meta` and the admin.
//!
//! ```
//! use stoa_kernel::model::*;
//! let button = model("website-builder", "button", "buttons")
//!     .content()
//!     .field(translations("title"))
//!     .field(text("url"))
//!     .variants(&["default", "primary"])
//!     .build();
//! assert_eq!(button.table, "website_builder_button");
//! assert!(button.field("slug").is_some_and(|f| f.unique));
//! ```

use serde::Serialize;

/// Languages content is written in. Keys of translation maps must look like a language tag.
pub const LANGUAGES: &[&str] = &["en", "ru"];

/// The TipTap document an empty rich-text value holds.
pub const EMPTY_DOC: &str = r#"{"type":"doc","content":[{"type":"paragraph"}]}"#;

/// How a field is stored, validated and shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Uuid,
    Text,
    Int,
    Bool,
    /// Exact number, serialised as a string.
    Decimal,
    Timestamp,
    /// `{"en": "...", "ru": "..."}`
    Translations,
    /// `{"en": <TipTap doc>, "ru": <TipTap doc>}`
    RichText,
    Json,
    /// Text restricted to `Field::values`.
    Enum,
    /// Foreign key (uuid) to `Field::target`.
    Reference,
}

impl Kind {
    /// Kinds stored as a JSON document (jsonb on PostgreSQL).
    pub fn is_json(self) -> bool {
        matches!(self, Kind::Translations | Kind::RichText | Kind::Json)
    }
}

/// A default applied on create when the field is absent.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", content = "value", rename_all = "camelCase")]
pub enum DefaultValue {
    None,
    Text(&'static str),
    Int(i64),
    Bool(bool),
    /// A JSON literal (e.g. `{}` for translation maps).
    Json(&'static str),
    /// The empty TipTap document in every language.
    EmptyDoc,
    /// Current time.
    Now,
    /// A fresh uuid v7.
    NewId,
    /// Three random words joined by `-` (`far-salmon-cod`).
    RandomSlug,
    /// Three random words joined by spaces (`far salmon cod`).
    RandomTitle,
    /// 32 random bytes as 64 hex digits: a secret the server makes for a record (an outgoing
    /// webhook's signing key), given on create and never taken from a body.
    RandomSecret,
}

impl Kind {
    /// Every kind (the `/api/meta` schema lists them; the web's `tsc` then demands a widget for
    /// each). [`Kind::index`] fails to compile when a kind is added and not listed here.
    pub const ALL: [Kind; 11] = [
        Kind::Uuid,
        Kind::Text,
        Kind::Int,
        Kind::Bool,
        Kind::Decimal,
        Kind::Timestamp,
        Kind::Translations,
        Kind::RichText,
        Kind::Json,
        Kind::Enum,
        Kind::Reference,
    ];

    /// The position of `self` in [`Kind::ALL`].
    pub const fn index(self) -> usize {
        match self {
            Kind::Uuid => 0,
            Kind::Text => 1,
            Kind::Int => 2,
            Kind::Bool => 3,
            Kind::Decimal => 4,
            Kind::Timestamp => 5,
            Kind::Translations => 6,
            Kind::RichText => 7,
            Kind::Json => 8,
            Kind::Enum => 9,
            Kind::Reference => 10,
        }
    }
}

/// A format rule on top of the kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Format {
    None,
    /// Lower-case letters, digits, `-` and `_`.
    Slug,
    Email,
    /// The location of a stored file (the admin shows a file picker with a preview).
    File,
}

impl Format {
    pub const ALL: [Format; 4] = [Format::None, Format::Slug, Format::Email, Format::File];
}

/// What happens to a referencing row when the referenced row is deleted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum OnDelete {
    Cascade,
    SetNull,
    Restrict,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Field {
    /// Wire name (camelCase).
    pub name: &'static str,
    /// Column name (snake_case).
    pub column: String,
    pub kind: Kind,
    /// NOT NULL, and (unless defaulted) must be given on create.
    pub required: bool,
    pub default: DefaultValue,
    pub unique: bool,
    /// Never serialised, never filterable, never written through the generic API.
    pub secret: bool,
    /// Set by the server only (`id`, `createdAt`, `updatedAt`); ignored in bodies.
    pub server_owned: bool,
    /// Allowed values for `Kind::Enum`.
    pub values: Vec<&'static str>,
    /// `module.entity` for `Kind::Reference`.
    pub target: Option<&'static str>,
    pub on_delete: OnDelete,
    pub format: Format,
    /// Maximum length in characters for text kinds.
    pub max_len: Option<usize>,
    /// Admin hint: shown as a list column.
    pub list: bool,
    /// A list column the admin does not sort on, so no index is kept for it (free text of a
    /// table written at every checkout: a session's user agent, a webhook's result).
    #[serde(skip)]
    pub unsorted: bool,
    /// The admin's search matches this field's whole value (an opaque reference such as a
    /// provider's payment id), through its list index, instead of searching inside it.
    #[serde(skip)]
    pub search_whole: bool,
    /// Admin hint: included in the admin's free-text search.
    pub searchable: bool,
    /// Admin hint: a technical field (a style class, a variant, an admin name, an address, a
    /// position) that the record form keeps in its closed "Advanced" section.
    pub advanced: bool,
}

/// Which generic operations an entity exposes.
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Ops {
    pub create: bool,
    pub update: bool,
    pub delete: bool,
    pub find_or_create: bool,
    pub bulk: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum EntityKind {
    Model,
    Relation,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Entity {
    pub module: &'static str,
    /// Singular kebab-case name for models (`buttons-array`), the relation's name for relations.
    pub name: &'static str,
    /// Route segment under `/api/{module}/`.
    pub route: &'static str,
    pub table: String,
    pub kind: EntityKind,
    pub fields: Vec<Field>,
    /// Allowed values of `variant`.
    pub variants: Vec<&'static str>,
    /// Admin hint: the field that names a record.
    pub title_field: Option<&'static str>,
    pub ops: Ops,
    /// Not readable by visitors: the default permissions grant no public read (accounts, orders,
    /// payments, messages, notifications). Relations touching a private entity are private too.
    pub private: bool,
    /// Readable itself, but links to it are not (which subject holds which identity, role or
    /// order is personal): relations referencing it are private, and page bundles do not follow
    /// them.
    #[serde(skip)]
    pub private_links: bool,
    /// A link from a subject (`subjectId`) to what it has — orders, payments, profiles — that
    /// moves to the account when a guest signs in. The module that owns the link says so.
    #[serde(skip)]
    pub follows_guest: bool,
    /// Has a publishing `status` (draft, published, scheduled) and `publishAt`: visitors read
    /// only published rows; a scheduled row is published at its time by a job.
    pub publishable: bool,
    /// Has a `hidden` flag: visitors and signed-in users read only rows where it is false (what
    /// an account uploads for a private place, such as a chat attachment), as they read only
    /// published rows of a publishable entity; admins, jobs and the owning module's services see
    /// all. Links from public link tables to a hidden row are hidden with it.
    #[serde(skip)]
    pub hideable: bool,
    /// Named events a write of this entity is (besides `created`, `updated` and `deleted`): an
    /// order that moved from `paying` to `approving` was `paid`. Heard by write taps (outgoing
    /// webhooks); see [`Signal`].
    #[serde(skip)]
    pub signals: Vec<Signal>,
    /// Indexes over several fields, in order, for a lookup the module itself makes that no
    /// one-column list index serves: a queue's due rows (`status` equal, then `sendAfter` in
    /// order). Each ends with `id`, as list indexes do. See [`EntityBuilder::lookup`].
    #[serde(skip)]
    pub lookups: Vec<&'static [&'static str]>,
}

/// A named event a write of an entity is, declared with the entity: `<module>.<entity>.<name>`
/// (`ecommerce.order.paid`). A create is the event when `field` is `None`; otherwise an update
/// that sets `field` to a value in `to` (any value, when empty) from a value in `from` (any other
/// value, when empty).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signal {
    pub name: &'static str,
    pub field: Option<&'static str>,
    pub from: &'static [&'static str],
    pub to: &'static [&'static str],
}

impl Signal {
    /// A create of the entity, named.
    pub const fn created(name: &'static str) -> Self {
        Self {
            name,
            field: None,
            from: &[],
            to: &[],
        }
    }

    /// An update moving `field` from one of `from` to one of `to` (empty: any).
    pub const fn moved(
        name: &'static str,
        field: &'static str,
        from: &'static [&'static str],
        to: &'static [&'static str],
    ) -> Self {
        Self {
            name,
            field: Some(field),
            from,
            to,
        }
    }

    /// Does a change of `field` from `before` (`None`: not known) to `after` make this event?
    /// An unknown `before` counts only where any `from` does.
    pub fn moves(&self, before: Option<&str>, after: Option<&str>) -> bool {
        if before.is_some() && before == after {
            return false;
        }
        let into = self.to.is_empty() || after.is_some_and(|v| self.to.contains(&v));
        let out_of = self.from.is_empty() || before.is_some_and(|v| self.from.contains(&v));
        into && out_of
    }
}

impl Entity {
    /// `module.name`, the key references use.
    pub fn key(&self) -> String {
        format!("{}.{}", self.module, self.name)
    }

    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    pub fn field_index(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.name == name)
    }

    /// Fields a response carries (everything but secrets).
    pub fn public_fields(&self) -> impl Iterator<Item = &Field> {
        self.fields.iter().filter(|f| !f.secret)
    }

    pub fn has_field(&self, name: &str) -> bool {
        self.field(name).is_some()
    }

    /// Whether field `f` leads its own list index (`(column, id)`): the admin sorts its tables by
    /// their list columns, and each is kept an index walk at any size. Not `variant` when the
    /// entity declares one variant: the column then holds one value, its index would order rows
    /// as `id` does, and every insert would pay for it (a paid checkout inserts some twenty rows).
    pub fn has_list_index(&self, f: &Field) -> bool {
        f.list
            && !f.unique
            && !f.secret
            && f.name != "orderIndex"
            && !f.unsorted
            && (f.name != "variant" || self.variants.len() >= 2)
            && matches!(
                f.kind,
                Kind::Text | Kind::Int | Kind::Enum | Kind::Timestamp | Kind::Decimal | Kind::Bool
            )
    }

    /// Whether the generic API may sort on `f`: only on columns an index leads (the primary key,
    /// `createdAt`, unique columns, list columns, references), so a sorted page is an index walk
    /// and never a sort of the whole table.
    pub fn sortable(&self, f: &Field) -> bool {
        !f.secret
            && !f.kind.is_json()
            && (f.name == "id"
                || f.name == "createdAt"
                || f.name == "orderIndex"
                || f.unique
                || self.has_list_index(f)
                || f.kind == Kind::Reference
                || (self.kind == EntityKind::Relation && f.kind == Kind::Uuid))
    }

    /// The fields [`Self::sortable`] allows, by name.
    pub fn sortable_names(&self) -> Vec<&'static str> {
        self.fields
            .iter()
            .filter(|f| self.sortable(f))
            .map(|f| f.name)
            .collect()
    }

    /// The two references of a relation, in declaration order.
    pub fn relation_ends(&self) -> Vec<&Field> {
        self.fields
            .iter()
            .filter(|f| f.kind == Kind::Reference)
            .collect()
    }
}

/// `buttonsArrayId` → `buttons_array_id`.
pub fn snake(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for (i, c) in name.chars().enumerate() {
        if c == '-' {
            out.push('_');
        } else if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// `buttons-array` → `buttonsArray`.
pub fn camel(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut up = false;
    for c in name.chars() {
        if c == '-' || c == '_' {
            up = true;
        } else if up {
            out.push(c.to_ascii_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn base(name: &'static str, kind: Kind) -> Field {
    Field {
        name,
        column: snake(name),
        kind,
        required: false,
        default: DefaultValue::None,
        unique: false,
        secret: false,
        server_owned: false,
        values: Vec::new(),
        target: None,
        on_delete: OnDelete::Cascade,
        format: Format::None,
        max_len: None,
        list: false,
        unsorted: false,
        search_whole: false,
        searchable: false,
        advanced: false,
    }
}

pub fn text(name: &'static str) -> Field {
    base(name, Kind::Text)
}
pub fn int(name: &'static str) -> Field {
    base(name, Kind::Int)
}
pub fn boolean(name: &'static str) -> Field {
    base(name, Kind::Bool)
}
pub fn decimal(name: &'static str) -> Field {
    base(name, Kind::Decimal)
}
pub fn timestamp(name: &'static str) -> Field {
    base(name, Kind::Timestamp)
}
pub fn uuid(name: &'static str) -> Field {
    base(name, Kind::Uuid)
}
pub fn json(name: &'static str) -> Field {
    base(name, Kind::Json)
}
/// A translation map, required with default `{}`.
pub fn translations(name: &'static str) -> Field {
    Field {
        required: true,
        default: DefaultValue::Json("{}"),
        ..base(name, Kind::Translations)
    }
}
/// A per-language rich-text document, defaulting to the empty document.
pub fn rich_text(name: &'static str) -> Field {
    Field {
        required: true,
        default: DefaultValue::EmptyDoc,
        ..base(name, Kind::RichText)
    }
}
pub fn enumeration(name: &'static str, values: &[&'static str]) -> Field {
    Field {
        values: values.to_vec(),
        ..base(name, Kind::Enum)
    }
}
/// A required foreign key to `target` (`module.entity`), cascading on delete.
pub fn reference(name: &'static str, target: &'static str) -> Field {
    Field {
        required: true,
        target: Some(target),
        ..base(name, Kind::Reference)
    }
}

impl Field {
    pub fn required(mut self) -> Self {
        self.required = true;
        self
    }
    pub fn optional(mut self) -> Self {
        self.required = false;
        self
    }
    /// Set by the server only: never written through the generic API (a state the module keeps).
    pub fn server_owned(mut self) -> Self {
        self.server_owned = true;
        self
    }

    pub fn unique(mut self) -> Self {
        self.unique = true;
        self
    }
    pub fn secret(mut self) -> Self {
        self.secret = true;
        self
    }
    pub fn default_text(mut self, v: &'static str) -> Self {
        self.default = DefaultValue::Text(v);
        self
    }
    pub fn default_int(mut self, v: i64) -> Self {
        self.default = DefaultValue::Int(v);
        self
    }
    pub fn default_bool(mut self, v: bool) -> Self {
        self.default = DefaultValue::Bool(v);
        self
    }
    pub fn default_now(mut self) -> Self {
        self.default = DefaultValue::Now;
        self
    }
    pub fn default_json(mut self, v: &'static str) -> Self {
        self.default = DefaultValue::Json(v);
        self
    }
    pub fn slug(mut self) -> Self {
        self.format = Format::Slug;
        self
    }
    pub fn email(mut self) -> Self {
        self.format = Format::Email;
        self
    }
    pub fn file(mut self) -> Self {
        self.format = Format::File;
        self
    }
    pub fn max_len(mut self, n: usize) -> Self {
        self.max_len = Some(n);
        self
    }
    pub fn list(mut self) -> Self {
        self.list = true;
        self
    }
    /// A technical field, kept in the admin form's "Advanced" section (see [`Field::advanced`]).
    pub fn advanced(mut self) -> Self {
        self.advanced = true;
        self
    }
    /// Shown as a list column, but not sorted on: no index (see [`Field::unsorted`]).
    pub fn unsorted(mut self) -> Self {
        self.list = true;
        self.unsorted = true;
        self
    }
    /// Found by the admin's search when the term is its whole value (see [`Field::search_whole`]):
    /// a list column, so an index serves the lookup.
    pub fn search_whole(mut self) -> Self {
        self.list = true;
        self.search_whole = true;
        self
    }
    pub fn searchable(mut self) -> Self {
        self.searchable = true;
        self
    }
    /// A reference without a database foreign key (the target may live elsewhere).
    pub fn no_fk(mut self) -> Self {
        self.kind = Kind::Uuid;
        self.target = None;
        self
    }
    pub fn on_delete(mut self, on_delete: OnDelete) -> Self {
        self.on_delete = on_delete;
        self
    }
    /// Column name override (for names `snake` would get wrong).
    pub fn column(mut self, column: &str) -> Self {
        self.column = column.to_owned();
        self
    }

    /// Whether the generic API may filter and sort on this field.
    pub fn filterable(&self) -> bool {
        !self.secret
    }

    /// Whether a create body may omit this field.
    pub fn has_default(&self) -> bool {
        !matches!(self.default, DefaultValue::None)
    }
}

/// Builds an [`Entity`]; see [`model`] and [`relation`].
pub struct EntityBuilder {
    entity: Entity,
}

fn common(
    module: &'static str,
    name: &'static str,
    route: &'static str,
    kind: EntityKind,
) -> Entity {
    let id = Field {
        required: true,
        server_owned: true,
        default: DefaultValue::NewId,
        ..base("id", Kind::Uuid)
    };
    let created = Field {
        required: true,
        server_owned: true,
        default: DefaultValue::Now,
        ..base("createdAt", Kind::Timestamp)
    };
    let updated = Field {
        required: true,
        server_owned: true,
        default: DefaultValue::Now,
        ..base("updatedAt", Kind::Timestamp)
    };
    let variant = Field {
        required: true,
        default: DefaultValue::Text("default"),
        list: true,
        max_len: Some(200),
        advanced: true,
        ..base("variant", Kind::Enum)
    };
    Entity {
        module,
        name,
        route,
        table: format!("{}_{}", snake(module), snake(name)),
        kind,
        fields: vec![id, created, updated, variant],
        variants: vec!["default"],
        title_field: None,
        private: false,
        private_links: false,
        follows_guest: false,
        publishable: false,
        hideable: false,
        signals: Vec::new(),
        lookups: Vec::new(),
        ops: Ops {
            create: true,
            update: true,
            delete: true,
            find_or_create: true,
            bulk: true,
        },
    }
}

/// A model: `id`, `createdAt`, `updatedAt`, `variant` and whatever `.field()` adds.
pub fn model(module: &'static str, name: &'static str, route: &'static str) -> EntityBuilder {
    EntityBuilder {
        entity: common(module, name, route, EntityKind::Model),
    }
}

/// A relation between two entities: the common columns plus `orderIndex`, `className` and the two
/// references `left` and `right` (`(fieldName, "module.entity")`), both cascading on delete.
pub fn relation(
    module: &'static str,
    name: &'static str,
    left: (&'static str, &'static str),
    right: (&'static str, &'static str),
) -> EntityBuilder {
    relation_one(module, name, left).field(reference(right.0, right.1).list())
}

/// `className`: a record's style class, kept under the admin's "Advanced".
pub fn class_name() -> Field {
    text("className").max_len(1000).advanced()
}

impl EntityBuilder {
    /// The content columns most models carry: `adminTitle` and `slug` (generated when absent)
    /// and `className`.
    pub fn content(self) -> Self {
        self.admin_title().field(slug_field()).field(class_name())
    }

    /// `adminTitle`, required, three random words when absent, the admin's title field.
    pub fn admin_title(mut self) -> Self {
        self.entity.fields.push(Field {
            required: true,
            default: DefaultValue::RandomTitle,
            list: true,
            searchable: true,
            max_len: Some(500),
            advanced: true,
            ..base("adminTitle", Kind::Text)
        });
        self.entity.title_field = Some("adminTitle");
        self
    }

    /// Translatable `title` (a list column), `subtitle` and `description`; `rich` makes the
    /// description a rich-text document.
    pub fn tsd(self, rich: bool) -> Self {
        let description = if rich {
            rich_text("description")
        } else {
            translations("description")
        };
        self.field(translations("title").list().searchable())
            .field(translations("subtitle"))
            .field(description)
    }

    pub fn field(mut self, field: Field) -> Self {
        if let Some(existing) = self.entity.fields.iter_mut().find(|f| f.name == field.name) {
            *existing = field;
        } else {
            self.entity.fields.push(field);
        }
        self
    }

    /// A named event writes of this entity make (see [`Signal`]).
    pub fn signal(mut self, signal: Signal) -> Self {
        self.entity.signals.push(signal);
        self
    }

    pub fn variants(mut self, variants: &[&'static str]) -> Self {
        self.entity.variants = variants.to_vec();
        self
    }

    pub fn title(mut self, field: &'static str) -> Self {
        self.entity.title_field = Some(field);
        self
    }

    /// An index over `fields` (then `id`) for a lookup the module makes: equality on the
    /// leading fields, a range or an order on the last. Without it such a lookup walks the index
    /// of one field, or the whole table, and its cost grows with every row the table ever kept
    /// (see [`Entity::lookups`]). The fields are checked by [`Self::build`].
    pub fn lookup(mut self, fields: &'static [&'static str]) -> Self {
        self.entity.lookups.push(fields);
        self
    }

    /// See [`Entity::private`].
    pub fn private(mut self) -> Self {
        self.entity.private = true;
        self
    }

    /// Links to this entity are private (see [`Entity::private_links`]).
    pub fn private_links(mut self) -> Self {
        self.entity.private_links = true;
        self
    }

    /// Moves to the account when a guest signs in (see [`Entity::follows_guest`]).
    pub fn follows_guest(mut self) -> Self {
        self.entity.follows_guest = true;
        self
    }

    /// A publishing `status` and `publishAt` (see [`Entity::publishable`]). The column defaults
    /// to `published`, so rows written before the field existed, and API clients that do not
    /// send it, keep the behaviour they had; the admin starts new records as drafts.
    pub fn publishable(mut self) -> Self {
        self.entity.publishable = true;
        self.field(
            enumeration(STATUS, &[DRAFT, PUBLISHED, SCHEDULED])
                .required()
                .default_text(PUBLISHED)
                .list(),
        )
        .field(timestamp(PUBLISH_AT).list())
    }

    /// A `hidden` flag (see [`Entity::hideable`]), false unless a write sets it.
    pub fn hideable(mut self) -> Self {
        self.entity.hideable = true;
        self.field(boolean(HIDDEN).required().default_bool(false).list())
    }

    pub fn no_bulk(mut self) -> Self {
        self.entity.ops.bulk = false;
        self
    }

    pub fn no_find_or_create(mut self) -> Self {
        self.entity.ops.find_or_create = false;
        self
    }

    /// Read-only through the generic API (writes happen in the module's services).
    pub fn read_only(mut self) -> Self {
        self.entity.ops = Ops {
            create: false,
            update: false,
            delete: false,
            find_or_create: false,
            bulk: false,
        };
        self
    }

    pub fn build(mut self) -> Entity {
        for fields in &self.entity.lookups {
            assert!(
                fields.len() >= 2,
                "{}: a lookup index takes two fields or more (one is a list index)",
                self.entity.key()
            );
            for (i, f) in fields.iter().enumerate() {
                let column = self.entity.field(f).filter(|f| !f.kind.is_json());
                assert!(
                    column.is_some(),
                    "{}: the lookup index names {f}, which is not a column of it",
                    self.entity.key()
                );
                assert!(
                    *f != "id" && !fields[..i].contains(f),
                    "{}: the lookup index names {f} twice (`id` comes last by itself)",
                    self.entity.key()
                );
            }
        }
        let variants = self.entity.variants.clone();
        if let Some(v) = self.entity.fields.iter_mut().find(|f| f.name == "variant") {
            v.values = variants;
        }
        self.entity
    }
}

/// The widget of a module with no block of its own (SPS's billing, file-storage and notification
/// widgets): an admin name and a slug, no texts or class. One declaration for the three.
pub fn plain_widget(module: &'static str) -> Entity {
    model(module, "widget", "widgets")
        .admin_title()
        .field(slug_field())
        .tsd(false)
        .build()
}

/// The widget model every module with a face on the site declares (SPS's): a block of a page,
/// with the content columns; a module adds the variants it renders and its own fields.
pub fn widget_model(module: &'static str) -> EntityBuilder {
    model(module, "widget", "widgets").content().tsd(false)
}

/// The attribute models ecommerce and social both declare (SPS's): an attribute — a value in one of
/// five shapes — and the key that names and types it. `types`: the key types the module knows;
/// `list_types`: whether the admin's lists show a key's type. (Their link is each module's, named
/// with its own keys.)
pub fn attribute_models(
    module: &'static str,
    types: &'static [&'static str],
    list_types: bool,
) -> [Entity; 2] {
    let kind = enumeration("type", types)
        .required()
        .default_text("feature");
    [
        model(module, "attribute", "attributes")
            .field(decimal("number").list())
            .field(boolean("boolean"))
            .field(timestamp("date"))
            .field(timestamp("datetime"))
            .field(translations("string").list())
            .build(),
        model(module, "attribute-key", "attribute-keys")
            .content()
            .field(if list_types { kind.list() } else { kind })
            .field(
                enumeration(
                    "field",
                    &["string", "number", "boolean", "date", "datetime"],
                )
                .required()
                .default_text("string"),
            )
            .field(translations("title").list())
            .field(translations("prefix"))
            .field(translations("suffix"))
            .build(),
    ]
}

/// `slug`: required, unique, slug-formatted, generated when absent.
pub fn slug_field() -> Field {
    Field {
        required: true,
        unique: true,
        default: DefaultValue::RandomSlug,
        format: Format::Slug,
        list: true,
        searchable: true,
        max_len: Some(200),
        advanced: true,
        ..base("slug", Kind::Text)
    }
}

/// A relation with one real reference and a polymorphic second end (declared by the caller).
pub fn relation_one(
    module: &'static str,
    name: &'static str,
    left: (&'static str, &'static str),
) -> EntityBuilder {
    let mut entity = common(module, name, name, EntityKind::Relation);
    entity.fields.push(
        int("orderIndex")
            .required()
            .default_int(0)
            .list()
            .advanced(),
    );
    entity.fields.push(class_name());
    entity.fields.push(reference(left.0, left.1).list());
    EntityBuilder { entity }
}

/// The publishing field of a [`EntityBuilder::publishable`] entity and its values.
pub const STATUS: &str = "status";
pub const PUBLISH_AT: &str = "publishAt";
pub const DRAFT: &str = "draft";
pub const PUBLISHED: &str = "published";
pub const SCHEDULED: &str = "scheduled";
/// The flag of a [`EntityBuilder::hideable`] entity.
pub const HIDDEN: &str = "hidden";

impl Entity {
    /// Adds `more` to the entity's variants (and its `variant` field's values), each once: the
    /// kinds a higher module contributes (its mail templates on `notification.template`).
    pub fn add_variants(&mut self, more: &[&'static str]) {
        for v in more {
            if !self.variants.contains(v) {
                self.variants.push(v);
            }
        }
        let variants = self.variants.clone();
        if let Some(f) = self.fields.iter_mut().find(|f| f.name == "variant") {
            f.values = variants;
        }
    }

    /// The field and value that make a row readable by visitors, when the entity has one
    /// (publishable: `status = published`; hideable: `hidden = false`).
    pub fn visible_when(&self) -> Option<(&'static str, crate::value::Val)> {
        use crate::value::Val;
        if self.publishable {
            Some((STATUS, Val::Text(PUBLISHED.into())))
        } else if self.hideable {
            Some((HIDDEN, Val::Bool(false)))
        } else {
            None
        }
    }
}

/// Every module's declarations, as a module crate exposes them.
#[derive(Clone, Debug)]
pub struct Module {
    pub name: &'static str,
    /// The module's `words.toml` (see `labels`): what editors read for its model, in en and
    /// ru; empty for a module that brings none (the admin then shows its names as declared).
    pub words: &'static str,
    pub entities: Vec<Entity>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lookup_names_two_columns_or_more() {
        let e = model("t", "thing", "things")
            .field(text("state").list())
            .field(timestamp("due"))
            .lookup(&["state", "due"])
            .build();
        assert_eq!(e.lookups, vec![&["state", "due"][..]]);
        let built = |fields: &'static [&'static str]| {
            std::panic::catch_unwind(|| {
                model("t", "thing", "things")
                    .field(text("state").list())
                    .field(json("data"))
                    .lookup(fields)
                    .build()
            })
            .is_ok()
        };
        assert!(!built(&["state"]), "one field is a list index");
        assert!(!built(&["state", "missing"]), "an undeclared field");
        assert!(!built(&["state", "data"]), "a JSON field");
        assert!(!built(&["state", "state"]), "a field twice");
        assert!(!built(&["state", "id"]), "id, which every lookup ends with");
        assert!(built(&["state", "createdAt"]));
    }

    #[test]
    fn a_signal_fires_on_the_moves_it_names_only() {
        let paid = Signal::moved("paid", "status", &["paying"], &["approving", "delivering"]);
        assert!(paid.moves(Some("paying"), Some("approving")));
        assert!(paid.moves(Some("paying"), Some("delivering")));
        assert!(
            !paid.moves(Some("new"), Some("approving")),
            "not from paying"
        );
        assert!(
            !paid.moves(Some("paying"), Some("canceled")),
            "not into a paid status"
        );
        assert!(
            !paid.moves(None, Some("approving")),
            "from unknown: not said to be paid"
        );
        let changed = Signal::moved("status-changed", "status", &[], &[]);
        assert!(changed.moves(Some("new"), Some("paying")));
        assert!(
            changed.moves(None, Some("paying")),
            "any move, even from unknown"
        );
        assert!(
            !changed.moves(Some("new"), Some("new")),
            "the same value is no move"
        );
    }

    #[test]
    fn snake_and_camel_round_trip_wire_names() {
        assert_eq!(
            snake("fileStorageModuleFileId"),
            "file_storage_module_file_id"
        );
        assert_eq!(snake("website-builder"), "website_builder");
        assert_eq!(camel("buttons-array"), "buttonsArray");
        assert_eq!(snake(&camel("attribute-key")), "attribute_key");
    }

    #[test]
    fn a_relation_has_order_index_class_name_and_two_cascading_references() {
        let r = relation(
            "host",
            "pages-to-widgets",
            ("pageId", "host.page"),
            ("widgetId", "host.widget"),
        )
        .build();
        assert_eq!(r.route, "pages-to-widgets");
        assert_eq!(r.table, "host_pages_to_widgets");
        let ends = r.relation_ends();
        assert_eq!(ends.len(), 2);
        assert!(
            ends.iter()
                .all(|f| f.on_delete == OnDelete::Cascade && f.required)
        );
        assert!(
            r.field("orderIndex")
                .is_some_and(|f| f.default == DefaultValue::Int(0))
        );
    }

    #[test]
    fn variants_are_copied_onto_the_variant_field() {
        let e = model("blog", "widget", "widgets")
            .variants(&["default", "x"])
            .build();
        assert_eq!(
            e.field("variant").map(|f| f.values.clone()),
            Some(vec!["default", "x"])
        );
    }

    /// A list column leads an index the admin sorts on, except where the index would serve no
    /// sort: `variant` of an entity with one variant (one value in the column), and a column
    /// declared `unsorted`.
    #[test]
    fn list_indexes_only_where_a_sort_can_use_them() {
        let one = model("blog", "note", "notes")
            .field(text("title").list())
            .field(text("remark").unsorted())
            .build();
        let two = model("blog", "widget", "widgets")
            .variants(&["default", "x"])
            .build();
        let f = |e: &Entity, n: &str| e.field(n).cloned().expect("field");
        assert!(one.has_list_index(&f(&one, "title")) && one.sortable(&f(&one, "title")));
        assert!(!one.has_list_index(&f(&one, "variant")) && !one.sortable(&f(&one, "variant")));
        assert!(two.has_list_index(&f(&two, "variant")) && two.sortable(&f(&two, "variant")));
        let remark = f(&one, "remark");
        assert!(remark.list, "still a list column");
        assert!(!one.has_list_index(&remark) && !one.sortable(&remark));
    }
}
