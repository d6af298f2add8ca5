//! A syntax tree to a flow's graph: the elements in the order written and the
//! edges `->` makes. In `a -> b`, every sink of `a` (an element nothing in `a`
//! feeds) connects to every source of `b`; `|` unites sources and sinks. Every
//! edge goes from an earlier element to a later one, so the written order is a
//! topological order and a flow can have no cycle.

use super::ast::{Definition, Element, Expr};

/// A parsed flow: its elements and the edges between them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Flow {
    /// The text it was parsed from.
    pub text: String,
    /// The callable filters defined before the flow, in the order written.
    pub definitions: Vec<Definition>,
    /// The elements in the order written.
    pub elements: Vec<Element>,
    /// `(from, to)` indices into `elements`, `from < to`, sorted, no duplicates.
    pub edges: Vec<(usize, usize)>,
}

impl Flow {
    /// Indices of the elements that feed element `i`.
    pub fn upstream(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        self.edges.iter().filter(move |e| e.1 == i).map(|e| e.0)
    }
}

/// Flattens `expr` into a [`Flow`] with the `definitions` before it.
pub(crate) fn lower(text: &str, (definitions, expr): (Vec<Definition>, Expr)) -> Flow {
    let mut flow = Flow {
        text: text.to_string(),
        definitions,
        elements: Vec::new(),
        edges: Vec::new(),
    };
    walk(expr, &mut flow);
    flow.edges.sort_unstable();
    flow.edges.dedup();
    flow
}

/// The sources and sinks of a sub-expression, as element indices.
struct Ends {
    sources: Vec<usize>,
    sinks: Vec<usize>,
}

fn walk(expr: Expr, flow: &mut Flow) -> Ends {
    match expr {
        Expr::Element(e) => {
            let i = flow.elements.len();
            flow.elements.push(e);
            Ends {
                sources: vec![i],
                sinks: vec![i],
            }
        }
        Expr::Parallel(parts) => {
            let mut ends = Ends {
                sources: Vec::new(),
                sinks: Vec::new(),
            };
            for part in parts {
                let e = walk(part, flow);
                ends.sources.extend(e.sources);
                ends.sinks.extend(e.sinks);
            }
            ends
        }
        Expr::Chain(parts) => {
            let mut sources = None;
            let mut sinks: Vec<usize> = Vec::new();
            for part in parts {
                let next = walk(part, flow);
                sources.get_or_insert(next.sources.clone());
                for &from in &sinks {
                    flow.edges.extend(next.sources.iter().map(|&to| (from, to)));
                }
                sinks = next.sinks;
            }
            Ends {
                sources: sources.unwrap_or_default(),
                sinks,
            }
        }
    }
}
