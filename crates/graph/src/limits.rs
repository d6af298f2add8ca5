//! The bounds every flow definition and running graph keeps, so that no text a
//! client sends can make the parser recurse or the running graph grow without end.

/// Bounds on flow text and on the running graph. [`Limits::default`] gives the
/// values the daemon uses; tests make smaller ones to reach them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of flow text (default 64 KiB).
    pub max_text: usize,
    /// Parentheses of grouping nested in one another (default 32); the parser
    /// recurses once per level, so this bounds its stack.
    pub max_depth: usize,
    /// Elements in one flow's graph (default 64).
    pub max_elements: usize,
    /// Arguments of one element (default 64).
    pub max_args: usize,
    /// Filter instances in the running graph, over all flows (default 4096).
    pub max_instances: usize,
    /// Flows running at once (default 1024).
    pub max_flows: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_text: 64 * 1024,
            max_depth: 32,
            max_elements: 64,
            max_args: 64,
            max_instances: 4096,
            max_flows: 1024,
        }
    }
}
