//! The words people read for the content model, in en and ru: each module's, entity's, field's
//! and enum value's label and (where useful) a short help text. They live beside each module's
//! declarations, in its `words.toml`; `crates/kernel/src/words.toml` holds the words of fields
//! and values that recur everywhere (`slug`, `createdAt`, `variant`). `/api/meta` serves them and
//! the admin shows nothing else: a test holds every declared name to having words in both
//! languages, so no raw key reaches a screen.
//!
//! A field's words are the entity's own when it gives a label, else the shared field's; enum
//! values are looked up one by one (the entity's, then the shared ones).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::{Entity, EntityKind};

/// What editors do, each a group of the admin's side list. A module's `words.toml` puts its
/// entities in one (`[module] group`), an entity may name another (`group`), and `rank` orders
/// a group (what is used most first; unranked ones after, by name). Relations are not listed:
/// they are edited inside the records they link.
pub const PURPOSES: &[&str] = &[
    "site", "content", "store", "people", "messages", "media", "system",
];

/// Words in each language (`en`, `ru`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Text {
    pub en: String,
    pub ru: String,
}

impl Text {
    fn complete(&self) -> bool {
        !self.en.trim().is_empty() && !self.ru.trim().is_empty()
    }
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Named {
    en: String,
    ru: String,
    #[serde(default)]
    help: Option<Text>,
    #[serde(default)]
    group: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FieldWords {
    #[serde(default)]
    en: Option<String>,
    #[serde(default)]
    ru: Option<String>,
    #[serde(default)]
    help: Option<Text>,
    #[serde(default)]
    value: BTreeMap<String, Text>,
}

impl FieldWords {
    fn label(&self) -> Option<Text> {
        Some(Text {
            en: self.en.clone()?,
            ru: self.ru.clone()?,
        })
    }
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct EntityWords {
    en: String,
    ru: String,
    en_many: String,
    ru_many: String,
    #[serde(default)]
    help: Option<Text>,
    #[serde(default)]
    group: Option<String>,
    #[serde(default)]
    rank: Option<u32>,
    #[serde(default)]
    field: BTreeMap<String, FieldWords>,
}

/// One `words.toml` as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    module: Option<Named>,
    #[serde(default)]
    entity: BTreeMap<String, EntityWords>,
    #[serde(default)]
    field: BTreeMap<String, FieldWords>,
    #[serde(default)]
    value: BTreeMap<String, BTreeMap<String, Text>>,
    /// Words of the variants a module adds to another module's entity
    /// (`[variant."notification.template"]`: the kinds of its own mails), kept with the module
    /// that adds them.
    #[serde(default)]
    variant: BTreeMap<String, BTreeMap<String, Text>>,
}

/// What an entity is called: one, many, what it is for, and where the admin lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EntityLabel {
    pub one: Text,
    pub many: Text,
    pub help: Option<Text>,
    /// One of [`PURPOSES`]: the entity's own, else its module's.
    pub group: Option<String>,
    pub rank: Option<u32>,
}

/// What a field is called, what to enter, and its enum values' words.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FieldLabel {
    pub label: Text,
    pub help: Option<Text>,
    pub values: BTreeMap<String, Text>,
}

/// Every module's words, and the shared ones.
#[derive(Clone, Debug, Default)]
pub struct Words {
    modules: BTreeMap<String, Named>,
    entities: BTreeMap<(String, String), EntityWords>,
    fields: BTreeMap<String, FieldWords>,
    values: BTreeMap<String, BTreeMap<String, Text>>,
    /// Entity key → contributed variant → its words.
    variants: BTreeMap<String, BTreeMap<String, Text>>,
}

/// The shared words (fields and values that recur across modules).
const SHARED: &str = include_str!("words.toml");

impl Words {
    /// The shared words alone.
    pub fn shared() -> Result<Self, String> {
        let mut w = Self::default();
        w.add("shared", SHARED)?;
        Ok(w)
    }

    /// Adds module `module`'s `words.toml` (the shared file's own `[field]`/`[value]` tables
    /// may appear in any file). A file that is not valid, or names a key twice, is an error.
    pub fn add(&mut self, module: &str, toml_text: &str) -> Result<(), String> {
        if toml_text.trim().is_empty() {
            return Ok(());
        }
        let f: File = toml::from_str(toml_text)
            .map_err(|e| format!("{module}'s words.toml: {}", e.message()))?;
        if let Some(m) = f.module {
            self.modules.insert(module.to_owned(), m);
        }
        for (name, e) in f.entity {
            if self
                .entities
                .insert((module.to_owned(), name.clone()), e)
                .is_some()
            {
                return Err(format!("{module}'s words.toml names entity {name} twice"));
            }
        }
        self.fields.extend(f.field);
        for (field, values) in f.value {
            self.values.entry(field).or_default().extend(values);
        }
        for (entity, values) in f.variant {
            let known = self.variants.entry(entity.clone()).or_default();
            for (v, t) in values {
                if known.insert(v.clone(), t).is_some() {
                    return Err(format!(
                        "{module}'s words.toml names variant {v} of {entity} a second time"
                    ));
                }
            }
        }
        Ok(())
    }

    /// The module's name in words.
    pub fn module(&self, module: &str) -> Option<Text> {
        self.modules.get(module).map(|m| Text {
            en: m.en.clone(),
            ru: m.ru.clone(),
        })
    }

    /// The module's help text.
    pub fn module_help(&self, module: &str) -> Option<Text> {
        self.modules.get(module).and_then(|m| m.help.clone())
    }

    /// The entity's names and help.
    pub fn entity(&self, module: &str, name: &str) -> Option<EntityLabel> {
        self.entities
            .get(&(module.to_owned(), name.to_owned()))
            .map(|e| EntityLabel {
                one: Text {
                    en: e.en.clone(),
                    ru: e.ru.clone(),
                },
                many: Text {
                    en: e.en_many.clone(),
                    ru: e.ru_many.clone(),
                },
                help: e.help.clone(),
                group: e
                    .group
                    .clone()
                    .or_else(|| self.modules.get(module).and_then(|m| m.group.clone())),
                rank: e.rank,
            })
    }

    /// A field's words: the entity's own label and help when it gives a label, else the shared
    /// field's; its enum values one by one (the entity's, then the shared).
    pub fn field(
        &self,
        module: &str,
        entity: &str,
        field: &str,
        values: &[&str],
    ) -> Option<FieldLabel> {
        let own = self
            .entities
            .get(&(module.to_owned(), entity.to_owned()))
            .and_then(|e| e.field.get(field));
        let shared = self.fields.get(field);
        let (label, help) = match own.and_then(|o| o.label().map(|l| (l, o.help.clone()))) {
            Some(x) => x,
            None => {
                let s = shared?;
                (s.label()?, s.help.clone())
            }
        };
        let mut words = BTreeMap::new();
        for v in values {
            let contributed = || {
                (field == "variant")
                    .then(|| self.variants.get(&format!("{module}.{entity}")))
                    .flatten()
                    .and_then(|m| m.get(*v))
            };
            let found = own
                .and_then(|o| o.value.get(*v))
                .or_else(contributed)
                .or_else(|| shared.and_then(|s| s.value.get(*v)))
                .or_else(|| self.values.get(field).and_then(|m| m.get(*v)));
            if let Some(t) = found {
                words.insert((*v).to_owned(), t.clone());
            }
        }
        Some(FieldLabel {
            label,
            help,
            values: words,
        })
    }

    /// Every declared name without words in both languages — a module, an entity, a field, an
    /// enum value — and every entity or field a `words.toml` names that is not declared (a
    /// typo). Empty when the words are complete.
    pub fn problems<'a>(&self, entities: impl IntoIterator<Item = &'a Entity>) -> Vec<String> {
        let mut out = Vec::new();
        let mut modules = BTreeMap::new();
        let mut declared = std::collections::BTreeSet::new();
        for e in entities {
            modules.insert(e.module, ());
            declared.insert((e.module.to_owned(), e.name.to_owned()));
            let key = format!("{}.{}", e.module, e.name);
            match self.entity(e.module, e.name) {
                Some(l) if l.one.complete() && l.many.complete() => match l.group.as_deref() {
                    Some(g) if !PURPOSES.contains(&g) => {
                        out.push(format!(
                            "entity {key}: group {g} is not one of {PURPOSES:?}"
                        ));
                    }
                    None if e.kind == EntityKind::Model => {
                        out.push(format!("entity {key}: no group in the admin's side list"));
                    }
                    _ => {}
                },
                _ => out.push(format!("entity {key}: no words in en and ru")),
            }
            let own = self.entities.get(&(e.module.to_owned(), e.name.to_owned()));
            for f in e.public_fields() {
                let values: Vec<&str> = f.values.clone();
                match self.field(e.module, e.name, f.name, &values) {
                    Some(l) if l.label.complete() => {
                        for v in &values {
                            if !l.values.get(*v).is_some_and(Text::complete) {
                                out.push(format!(
                                    "value {key}.{}={v}: no words in en and ru",
                                    f.name
                                ));
                            }
                        }
                    }
                    _ => out.push(format!("field {key}.{}: no words in en and ru", f.name)),
                }
            }
            if let Some(added) = self.variants.get(&key) {
                let declared = e
                    .field("variant")
                    .map(|f| f.values.clone())
                    .unwrap_or_default();
                for v in added.keys().filter(|v| !declared.contains(&v.as_str())) {
                    out.push(format!(
                        "words for {key}.variant={v}, which is not a variant"
                    ));
                }
            }
            if let Some(own) = own {
                for (name, fw) in &own.field {
                    match e.field(name) {
                        None => out.push(format!("words for {key}.{name}, which is not a field")),
                        Some(f) => {
                            for v in fw.value.keys() {
                                if !f.values.contains(&v.as_str()) {
                                    out.push(format!(
                                        "words for {key}.{name}={v}, which is not a value"
                                    ));
                                }
                            }
                        }
                    }
                }
            }
        }
        for m in modules.keys() {
            if !self.module(m).is_some_and(|t| t.complete()) {
                out.push(format!("module {m}: no words in en and ru"));
            }
        }
        for (m, n) in self.entities.keys() {
            if !declared.contains(&(m.clone(), n.clone())) {
                out.push(format!("words for {m}.{n}, which is not declared"));
            }
        }
        for key in self.variants.keys() {
            let found = key
                .split_once('.')
                .is_some_and(|(m, n)| declared.contains(&(m.to_owned(), n.to_owned())));
            if !found {
                out.push(format!(
                    "words for variants of {key}, which is not declared"
                ));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{enumeration, model, text};

    const BLOG: &str = r#"
[module]
en = "Blog"
ru = "Блог"
group = "content"

[entity.article]
en = "Article"
ru = "Статья"
en_many = "Articles"
ru_many = "Статьи"

[entity.article.field.title]
en = "Headline"
ru = "Заголовок"

[entity.article.field.status.value]
draft = { en = "Draft", ru = "Черновик" }
"#;

    fn words() -> Words {
        let mut w = Words::shared().expect("the shared words parse");
        w.add("blog", BLOG).expect("the blog's words parse");
        w
    }

    #[test]
    fn a_field_takes_the_entity_s_words_else_the_shared_ones_and_values_one_by_one() {
        let w = words();
        let title = w.field("blog", "article", "title", &[]).expect("title");
        assert_eq!(title.label.ru, "Заголовок");
        let slug = w
            .field("blog", "article", "slug", &[])
            .expect("the shared slug");
        assert!(slug.label.complete());
        let status = w
            .field("blog", "article", "status", &["draft", "nope"])
            .expect("status");
        assert_eq!(status.values["draft"].ru, "Черновик");
        assert!(!status.values.contains_key("nope"));
    }

    #[test]
    fn problems_name_every_gap_and_every_typo() {
        let e = model("blog", "article", "articles")
            .field(text("title"))
            .field(text("teaser"))
            .field(enumeration("status", &["draft", "wilting"]))
            .build();
        let other = model("blog", "category", "categories").build();
        let p = words().problems([&e, &other]);
        assert_eq!(
            words().entity("blog", "article").and_then(|l| l.group),
            Some("content".to_owned()),
            "the module's group"
        );
        let mut astray = Words::shared().expect("parses");
        astray
            .add("blog", "[module]\nen = \"B\"\nru = \"Б\"\n[entity.article]\nen = \"A\"\nru = \"А\"\nen_many = \"As\"\nru_many = \"Ас\"\ngroup = \"attic\"\n")
            .expect("parses");
        assert!(
            astray
                .problems([&e])
                .iter()
                .any(|x| x.contains("group attic is not one of"))
        );
        let mut homeless = Words::shared().expect("parses");
        homeless
            .add("blog", "[module]\nen = \"B\"\nru = \"Б\"\n[entity.article]\nen = \"A\"\nru = \"А\"\nen_many = \"As\"\nru_many = \"Ас\"\n")
            .expect("parses");
        assert!(
            homeless
                .problems([&e])
                .contains(&"entity blog.article: no group in the admin's side list".to_owned())
        );
        assert!(
            p.contains(&"field blog.article.teaser: no words in en and ru".to_owned()),
            "{p:?}"
        );
        assert!(
            p.contains(&"value blog.article.status=wilting: no words in en and ru".to_owned()),
            "{p:?}"
        );
        assert!(
            p.contains(&"entity blog.category: no words in en and ru".to_owned()),
            "{p:?}"
        );
        assert!(!p.iter().any(|x| x.contains("status=draft")), "{p:?}");
        let mut typo = words();
        typo.add(
            "shop",
            "[entity.ghost]\nen = \"G\"\nru = \"Г\"\nen_many = \"Gs\"\nru_many = \"Гс\"\n",
        )
        .expect("parses");
        assert!(
            typo.problems([&e])
                .contains(&"words for shop.ghost, which is not declared".to_owned())
        );
    }

    #[test]
    fn a_file_with_an_unknown_key_is_refused() {
        let mut w = Words::default();
        let e = w
            .add("blog", "[entity.article]\nen = \"A\"\nru = \"А\"\nen_many = \"As\"\nru_many = \"Ас\"\nfr = \"x\"\n")
            .expect_err("fr is not a key");
        assert!(e.contains("blog's words.toml"), "{e}");
    }

    #[test]
    fn a_module_brings_the_words_of_the_variants_it_adds_to_another_s_entity() {
        let e = model("blog", "article", "articles")
            .field(text("title"))
            .variants(&["default", "shop-mail"])
            .build();
        let mut w = words();
        w.add(
            "shop",
            "[variant.\"blog.article\"]\nshop-mail = { en = \"Shop mail\", ru = \"Письмо магазина\" }\n",
        )
        .expect("parses");
        let l = w
            .field("blog", "article", "variant", &["shop-mail"])
            .expect("words");
        assert_eq!(l.values["shop-mail"].ru, "Письмо магазина");
        assert!(!w.problems([&e]).iter().any(|p| p.contains("shop-mail")));
        // Named twice, for a variant that is not there, or for an undeclared entity: refused.
        assert!(
            w.add(
                "other",
                "[variant.\"blog.article\"]\nshop-mail = { en = \"A\", ru = \"Б\" }\n"
            )
            .is_err()
        );
        w.add(
            "other",
            "[variant.\"blog.article\"]\nshop-malt = { en = \"A\", ru = \"Б\" }\n[variant.\"blog.ghost\"]\nx = { en = \"A\", ru = \"Б\" }\n",
        )
        .expect("parses");
        let p = w.problems([&e]);
        assert!(
            p.contains(
                &"words for blog.article.variant=shop-malt, which is not a variant".to_owned()
            ),
            "{p:?}"
        );
        assert!(
            p.contains(&"words for variants of blog.ghost, which is not declared".to_owned()),
            "{p:?}"
        );
    }
}
