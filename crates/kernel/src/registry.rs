//! All declared entities, checked once at start-up: unique routes and tables, references that
//! resolve, variant defaults that are allowed.

use std::collections::HashMap;
use std::sync::Arc;

use crate::model::{DefaultValue, Entity, EntityKind, Kind, Module};

pub struct Registry {
    entities: Vec<Arc<Entity>>,
    words: crate::labels::Words,
    by_route: HashMap<(String, String), usize>,
    by_key: HashMap<String, usize>,
}

impl Registry {
    /// Builds and checks the registry. The error lists every problem found.
    pub fn new(modules: Vec<Module>) -> Result<Self, String> {
        let mut entities = Vec::new();
        let mut by_route = HashMap::new();
        let mut by_key = HashMap::new();
        let mut tables = HashMap::new();
        let mut problems = Vec::new();
        let mut words = crate::labels::Words::shared()?;
        for module in modules {
            if let Err(e) = words.add(module.name, module.words) {
                problems.push(e);
            }
            for e in module.entities {
                if e.module != module.name {
                    problems.push(format!("{} is declared in module {}", e.key(), module.name));
                }
                let i = entities.len();
                if by_route
                    .insert((e.module.to_owned(), e.route.to_owned()), i)
                    .is_some()
                {
                    problems.push(format!(
                        "route /api/{}/{} declared twice",
                        e.module, e.route
                    ));
                }
                if by_key.insert(e.key(), i).is_some() {
                    problems.push(format!("entity {} declared twice", e.key()));
                }
                if tables.insert(e.table.clone(), i).is_some() {
                    problems.push(format!("table {} declared twice", e.table));
                }
                entities.push(Arc::new(e));
            }
        }
        for e in &entities {
            for f in &e.fields {
                if f.kind == Kind::Reference {
                    match f.target {
                        Some(t) if by_key.contains_key(t) => {}
                        other => problems.push(format!(
                            "{}.{} references unknown {other:?}",
                            e.key(),
                            f.name
                        )),
                    }
                }
                if f.kind == Kind::Enum {
                    if f.values.is_empty() {
                        problems.push(format!("{}.{} has no allowed values", e.key(), f.name));
                    }
                    if let DefaultValue::Text(d) = f.default
                        && !f.values.contains(&d)
                    {
                        problems.push(format!("{}.{} default {d} is not allowed", e.key(), f.name));
                    }
                }
            }
            if e.kind == EntityKind::Relation && e.relation_ends().is_empty() {
                problems.push(format!("relation {} has no reference", e.key()));
            }
        }
        if problems.is_empty() {
            Ok(Self {
                entities,
                words,
                by_route,
                by_key,
            })
        } else {
            Err(problems.join("; "))
        }
    }

    pub fn entities(&self) -> &[Arc<Entity>] {
        &self.entities
    }

    /// The words people read for the model (see `labels`).
    pub fn words(&self) -> &crate::labels::Words {
        &self.words
    }

    pub fn by_route(&self, module: &str, route: &str) -> Option<&Arc<Entity>> {
        self.by_route
            .get(&(module.to_owned(), route.to_owned()))
            .map(|&i| &self.entities[i])
    }

    /// Looks up `module.entity`.
    pub fn by_key(&self, key: &str) -> Option<&Arc<Entity>> {
        self.by_key.get(key).map(|&i| &self.entities[i])
    }

    /// Entities in an order where every reference target comes before the entity referencing it
    /// (the order tables must be created in).
    pub fn creation_order(&self) -> Vec<Arc<Entity>> {
        let mut done: Vec<bool> = vec![false; self.entities.len()];
        let mut out = Vec::with_capacity(self.entities.len());
        fn visit(
            r: &Registry,
            i: usize,
            done: &mut Vec<bool>,
            out: &mut Vec<Arc<Entity>>,
            depth: usize,
        ) {
            if done[i] || depth > 64 {
                return;
            }
            done[i] = true;
            for f in &r.entities[i].fields {
                if let Some(j) = f.target.and_then(|t| r.by_key.get(t))
                    && *j != i
                {
                    visit(r, *j, done, out, depth + 1);
                }
            }
            out.push(r.entities[i].clone());
        }
        for i in 0..self.entities.len() {
            visit(self, i, &mut done, &mut out, 0);
        }
        out
    }

    /// Relations whose references point at `key` (`module.entity`), with the referencing field.
    pub fn referencing(&self, key: &str) -> Vec<(Arc<Entity>, &'static str)> {
        self.entities
            .iter()
            .flat_map(|e| {
                e.fields
                    .iter()
                    .filter(|f| f.target == Some(key))
                    .map(|f| (e.clone(), f.name))
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// Is `e` readable by visitors? Private entities, and entities referencing a private one or
    /// one whose links are private, are not.
    pub fn publicly_readable(&self, e: &Entity) -> bool {
        if e.private {
            return false;
        }
        e.fields
            .iter()
            .filter(|f| f.kind == Kind::Reference)
            .filter_map(|f| f.target)
            .all(|t| {
                self.by_key(t)
                    .is_none_or(|x| !x.private && !x.private_links)
            })
    }
}
