//! docs/architecture.md is the map of the workspace; this test keeps it true.
//!
//! It runs `cargo metadata --no-deps`, takes every workspace package's normal
//! dependencies (not dev-, not build-dependencies) on other workspace packages, and
//! requires them to equal the arrows in the document's ```` ```arrows ```` block, one
//! line per crate: `engine -> isa`, `wire ->`. Package `netsift-X` is crate `X`;
//! package `netsift` is `cli`. It also requires every workspace crate to have a line,
//! the document to stay a map (at most `MAX_LINES` lines), and no issue numbers or
//! commit hashes in it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The document may not grow past this: it is a map, details go in the documents it links.
const MAX_LINES: usize = 260;

type Arrows = BTreeMap<String, BTreeSet<String>>;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn doc() -> String {
    let path = workspace_root().join("docs/architecture.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `netsift-engine` is `engine`; the binary's package `netsift` is `cli`.
fn crate_name(package: &str) -> String {
    match package {
        "netsift" => "cli".to_string(),
        other => other.strip_prefix("netsift-").unwrap_or(other).to_string(),
    }
}

/// The arrows the code has, from `cargo metadata`.
fn code_arrows() -> Arrows {
    let out = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .current_dir(workspace_root())
        .output()
        .expect("run cargo metadata");
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("cargo metadata's JSON");
    let members: BTreeSet<&str> = meta["workspace_members"]
        .as_array()
        .expect("workspace_members")
        .iter()
        .filter_map(|id| id.as_str())
        .collect();
    let packages: Vec<&serde_json::Value> = meta["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .filter(|p| p["id"].as_str().is_some_and(|id| members.contains(id)))
        .collect();
    let names: BTreeSet<&str> = packages.iter().filter_map(|p| p["name"].as_str()).collect();
    let mut arrows = Arrows::new();
    for p in &packages {
        let from = crate_name(p["name"].as_str().expect("package name"));
        let deps = arrows.entry(from).or_default();
        for d in p["dependencies"].as_array().expect("dependencies") {
            // `kind` is null for a normal dependency, "dev" or "build" otherwise.
            let name = d["name"].as_str().expect("dependency name");
            if d["kind"].is_null() && names.contains(name) {
                deps.insert(crate_name(name));
            }
        }
    }
    arrows
}

/// The arrows the document states: the lines of its ```` ```arrows ```` block.
fn doc_arrows(doc: &str) -> Arrows {
    let mut lines = doc.lines().skip_while(|l| l.trim() != "```arrows");
    assert!(
        lines.next().is_some(),
        "docs/architecture.md has no ```arrows block"
    );
    let mut arrows = Arrows::new();
    for line in lines.take_while(|l| l.trim() != "```") {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let (from, to) = line
            .split_once("->")
            .unwrap_or_else(|| panic!("arrows line without `->`: {line:?}"));
        let from = from.trim().to_string();
        let to: BTreeSet<String> = to
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        assert!(
            arrows.insert(from.clone(), to).is_none(),
            "crate {from} has two arrows lines"
        );
    }
    arrows
}

fn pairs(arrows: &Arrows) -> BTreeSet<String> {
    arrows
        .iter()
        .flat_map(|(from, to)| to.iter().map(move |t| format!("{from} -> {t}")))
        .collect()
}

#[test]
fn arrows_match_cargo_metadata() {
    let code = code_arrows();
    let doc = doc_arrows(&doc());
    let (code_pairs, doc_pairs) = (pairs(&code), pairs(&doc));
    let missing: Vec<_> = code_pairs.difference(&doc_pairs).collect();
    let extra: Vec<_> = doc_pairs.difference(&code_pairs).collect();
    let unlisted: Vec<_> = code.keys().filter(|c| !doc.contains_key(*c)).collect();
    let absent: Vec<_> = doc.keys().filter(|c| !code.contains_key(*c)).collect();
    assert!(
        missing.is_empty() && extra.is_empty() && unlisted.is_empty() && absent.is_empty(),
        "docs/architecture.md's arrows differ from `cargo metadata`:\n\
         arrows the code has and the doc lacks: {missing:?}\n\
         arrows in the doc the code does not have: {extra:?}\n\
         workspace crates without a line in the doc: {unlisted:?}\n\
         crates in the doc that are not in the workspace: {absent:?}"
    );
}

#[test]
fn every_crate_is_described() {
    let doc = doc();
    let missing: Vec<_> = code_arrows()
        .into_keys()
        .filter(|c| !doc.contains(&format!("**`{c}`**")))
        .collect();
    assert!(
        missing.is_empty(),
        "crates without a paragraph (**`name`**) in docs/architecture.md: {missing:?}"
    );
}

#[test]
fn the_map_stays_short() {
    let n = doc().lines().count();
    assert!(
        n <= MAX_LINES,
        "docs/architecture.md has {n} lines, more than {MAX_LINES}: move details into the documents it links"
    );
}

/// `issue 16`, `Issue #3`, `issues 13-14`.
fn issue_numbers(doc: &str) -> Vec<String> {
    let words: Vec<&str> = doc.split_whitespace().collect();
    words
        .windows(2)
        .filter(|w| {
            let first = w[0]
                .trim_start_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase();
            (first == "issue" || first == "issues")
                && w[1]
                    .trim_start_matches('#')
                    .starts_with(|c: char| c.is_ascii_digit())
        })
        .map(|w| w.join(" "))
        .collect()
}

/// Words of 7 to 40 hex digits with at least one digit and one letter: what a commit
/// hash looks like (plain numbers and words like `defaced` are not flagged).
fn commit_like(doc: &str) -> Vec<String> {
    doc.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| {
            (7..=40).contains(&w.len())
                && w.chars().all(|c| c.is_ascii_hexdigit())
                && w.chars().any(|c| c.is_ascii_digit())
                && w.chars().any(|c| c.is_ascii_alphabetic())
        })
        .map(String::from)
        .collect()
}

#[test]
fn no_issue_numbers_or_commit_hashes() {
    let doc = doc();
    let (issues, hashes) = (issue_numbers(&doc), commit_like(&doc));
    assert!(
        issues.is_empty() && hashes.is_empty(),
        "docs/architecture.md names issues {issues:?} and commit-like words {hashes:?}"
    );
}

#[test]
fn the_detectors_detect() {
    assert_eq!(
        issue_numbers("Kernel placement (issue 16): x"),
        ["(issue 16):"]
    );
    assert_eq!(issue_numbers("see Issue #3"), ["Issue #3"]);
    assert!(issue_numbers("an issue with 16 bits").is_empty());
    assert_eq!(
        commit_like("at `a33180e` against 0f5a83f."),
        ["a33180e", "0f5a83f"]
    );
    assert!(commit_like("1000000 packets, defaced, 0x1f").is_empty());
}
