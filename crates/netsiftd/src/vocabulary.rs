//! The daemon's vocabulary for policy files (`netsift_ffpf::auth::Vocabulary`):
//! which graph classes, external-function kinds and filters a rule may name.
//! `config` loads the policy with it and `graph::authorise` judges flows in
//! the same names, so it sits below both.

use netsift_ffpf::auth::Vocabulary;
use netsift_graph::class::Role;

/// The daemon's names for policy files: classes from the class table,
/// function kinds from the registry FPL elements are checked against and
/// from the class table's external-function classes, filters by
/// netsift-pcapc's parser.
pub(crate) struct Names;

impl Vocabulary for Names {
    fn class(&self, name: &str) -> Result<String, String> {
        netsift_graph::class::lookup(name)
            .map(|c| c.name.to_string())
            .ok_or_else(|| {
                let all: Vec<&str> = netsift_graph::class::CLASSES
                    .iter()
                    .map(|c| c.name)
                    .collect();
                format!("no class {name:?}; the classes are {}", all.join(", "))
            })
    }

    fn external(&self, kind: &str) -> Result<String, String> {
        let kinds = kinds();
        if kinds.iter().any(|k| k == kind) {
            return Ok(kind.to_string());
        }
        Err(format!(
            "no external function of kind {kind:?}; the kinds are {}",
            kinds.join(", ")
        ))
    }

    fn filter(&self, text: &str) -> Result<(), String> {
        // Compared on this thread's stack (see `tree`): deeper would never
        // be restricted to.
        let deep = netsift_pcapc::syntax::nesting_bound(text);
        if deep > netsift_pcapc::syntax::SHALLOW {
            return Err(format!(
                "filter {text:?} nests {deep} deep, more than the {} a requirement compares",
                netsift_pcapc::syntax::SHALLOW
            ));
        }
        match netsift_pcapc::syntax::parse(text) {
            Ok(Some(_)) => Ok(()),
            Ok(None) => Err("an empty filter restricts nothing".into()),
            Err(e) => Err(format!("filter {text:?}: {e}")),
        }
    }
}

/// Every kind of external function: the registry's names before any `:`,
/// and the external-function classes (`aho_corasick`, `memmem`: their sets
/// are configured, their kinds fixed).
fn kinds() -> Vec<String> {
    let reg = netsift_externs::standard();
    let mut kinds: Vec<String> = reg.names().map(|n| kind(n).to_string()).collect();
    kinds.extend(
        netsift_graph::class::CLASSES
            .iter()
            .filter(|c| c.role == Role::External)
            .map(|c| c.name.to_string()),
    );
    kinds.sort();
    kinds.dedup();
    kinds
}

/// The kind of external function `name`: `aho_corasick` for
/// `aho_corasick:worms`.
pub(crate) fn kind(name: &str) -> &str {
    name.split_once(':').map_or(name, |(k, _)| k)
}
