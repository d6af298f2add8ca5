//! Passes and pass sets.
//!
//! A [`Pass`] is an AND of instructions; a [`PassSet`] is an OR of its root passes.
//! Sub-passes are reached only through GROUP instructions. A pass may name a parent
//! (an earlier pass); its instructions marked `copied` are the parent's, and the engine
//! reuses the parent's results for them (hierarchical execution). Root passes are kept
//! in depth-first order — a child follows its parent's subtree — so evaluating them in
//! index order is the seeds' depth-first walk.
//!
//! Invariants kept by every method here: at most [`MAX_PASSES`] passes, at most
//! [`MAX_INSNS`] instructions a pass, at most [`MAX_ANCHORS`] anchors, a parent index
//! smaller than the child's, an anchor's parent smaller than the anchor. Instruction
//! images themselves are never validated: any image is safe to run.

use crate::table::KeyTable;
use crate::{Anchor, AnchorRule, Instruction, MAX_ANCHORS, MAX_INSNS, MAX_PASSES, MAX_TABLES};
use std::fmt;

/// Where a pass takes part in the pass set's OR.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PassKind {
    /// Part of the top-level OR.
    Root,
    /// Evaluated only as a member of a GROUP instruction's range.
    Sub,
}

/// An AND of at most [`MAX_INSNS`] instructions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pass {
    /// A root pass of the OR, or a sub-pass of GROUPs.
    pub kind: PassKind,
    /// The earlier pass whose results its `copied` instructions reuse.
    pub parent: Option<u16>,
    insns: Vec<Instruction>,
}

impl Pass {
    /// An empty pass (it accepts every packet) of `kind`, without a parent.
    pub fn new(kind: PassKind) -> Pass {
        Pass {
            kind,
            parent: None,
            insns: Vec::new(),
        }
    }
    /// The instructions, in order.
    pub fn instructions(&self) -> &[Instruction] {
        &self.insns
    }
    /// How many instructions it holds.
    pub fn len(&self) -> usize {
        self.insns.len()
    }
    /// Whether it holds none (and so accepts every packet).
    pub fn is_empty(&self) -> bool {
        self.insns.is_empty()
    }
}

/// Why an edit of a pass set was refused. The pass set is unchanged after an error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UpdateError {
    /// The set holds [`MAX_PASSES`] passes already.
    TooManyPasses,
    /// The pass holds [`MAX_INSNS`] instructions already.
    TooManyInstructions {
        /// The pass.
        pass: usize,
    },
    /// The anchor table holds [`MAX_ANCHORS`] entries already.
    TooManyAnchors,
    /// No pass has this index.
    NoSuchPass(usize),
    /// The pass has no instruction at this index.
    NoSuchInstruction {
        /// The pass.
        pass: usize,
        /// The index asked for.
        index: usize,
    },
    /// A parent must be an earlier pass.
    BadParent {
        /// The pass.
        pass: usize,
        /// The parent asked for.
        parent: usize,
    },
    /// An anchor's parent must be an earlier anchor.
    BadAnchorParent {
        /// The anchor.
        anchor: usize,
        /// The parent asked for.
        parent: usize,
    },
    /// The set holds `MAX_TABLES` key tables already.
    TooManyTables,
}

impl fmt::Display for UpdateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UpdateError::TooManyPasses => write!(f, "a pass set holds at most {MAX_PASSES} passes"),
            UpdateError::TooManyInstructions { pass } => {
                write!(
                    f,
                    "pass {pass}: a pass holds at most {MAX_INSNS} instructions"
                )
            }
            UpdateError::TooManyAnchors => {
                write!(f, "a pass set holds at most {MAX_ANCHORS} anchors")
            }
            UpdateError::NoSuchPass(p) => write!(f, "no pass {p}"),
            UpdateError::NoSuchInstruction { pass, index } => {
                write!(f, "pass {pass} has no instruction {index}")
            }
            UpdateError::BadParent { pass, parent } => {
                write!(f, "pass {pass}: parent {parent} must be an earlier pass")
            }
            UpdateError::TooManyTables => {
                write!(f, "a pass set holds at most {MAX_TABLES} key tables")
            }
            UpdateError::BadAnchorParent { anchor, parent } => {
                write!(
                    f,
                    "anchor {anchor}: parent {parent} must be an earlier anchor"
                )
            }
        }
    }
}

impl std::error::Error for UpdateError {}

/// An OR of passes plus the anchor table their instructions address and the key
/// tables their SET instructions look keys up in (p1 is the table's index).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassSet {
    passes: Vec<Pass>,
    anchors: Vec<Anchor>,
    tables: Vec<KeyTable>,
}

impl Default for PassSet {
    fn default() -> Self {
        Self::new()
    }
}

impl PassSet {
    /// An empty pass set: it accepts nothing.
    pub fn new() -> PassSet {
        PassSet {
            passes: Vec::new(),
            anchors: vec![Anchor::new(AnchorRule::Const, 0, 0)],
            tables: Vec::new(),
        }
    }

    /// A pass set with one empty root pass: it accepts everything.
    pub fn accept_all() -> PassSet {
        let mut s = PassSet::new();
        s.passes.push(Pass::new(PassKind::Root));
        s
    }

    /// The passes, roots and sub-passes, in order.
    pub fn passes(&self) -> &[Pass] {
        &self.passes
    }
    /// The anchor table; entry 0 is the packet start.
    pub fn anchors(&self) -> &[Anchor] {
        &self.anchors
    }
    /// The key tables; SET's p1 indexes them.
    pub fn tables(&self) -> &[KeyTable] {
        &self.tables
    }

    /// Whether table `table` holds `key`; `None` if there is no such table (a SET
    /// naming it is invalid).
    #[inline]
    pub fn table_contains(&self, table: u32, key: u64) -> Option<bool> {
        self.tables.get(table as usize).map(|t| t.contains(key))
    }

    /// Adds a key table for SET instructions (keys as [`crate::set_key`] builds them);
    /// returns its index, the SET's p1. An equal table already present is shared.
    /// O(n log n) in the number of keys.
    pub fn add_table(&mut self, keys: impl IntoIterator<Item = u64>) -> Result<u32, UpdateError> {
        let t = KeyTable::new(keys);
        if let Some(i) = self.tables.iter().position(|x| x.keys() == t.keys()) {
            return Ok(i as u32);
        }
        if self.tables.len() >= MAX_TABLES {
            return Err(UpdateError::TooManyTables);
        }
        self.tables.push(t);
        Ok(self.tables.len() as u32 - 1)
    }

    /// How many instructions all passes hold together: the most the engine runs
    /// for one packet.
    pub fn instruction_count(&self) -> usize {
        self.passes.iter().map(Pass::len).sum()
    }

    /// Every instruction with equality operands (EQ, MEQ, EQ2: what the seeds'
    /// `add_param`/`del_param` edit), as (pass, index, instruction), in order.
    pub fn operand_sites(&self) -> impl Iterator<Item = (usize, usize, Instruction)> + '_ {
        self.passes.iter().enumerate().flat_map(|(p, pass)| {
            pass.instructions()
                .iter()
                .enumerate()
                .filter(|(_, i)| i.operand_slots().is_some())
                .map(move |(k, i)| (p, k, *i))
        })
    }

    /// Appends a pass; returns its index.
    pub fn push_pass(
        &mut self,
        kind: PassKind,
        parent: Option<usize>,
    ) -> Result<usize, UpdateError> {
        let idx = self.passes.len();
        if idx >= MAX_PASSES {
            return Err(UpdateError::TooManyPasses);
        }
        if let Some(p) = parent {
            if p >= idx {
                return Err(UpdateError::BadParent {
                    pass: idx,
                    parent: p,
                });
            }
        }
        let mut pass = Pass::new(kind);
        pass.parent = parent.map(|p| p as u16);
        self.passes.push(pass);
        Ok(idx)
    }

    /// Makes `parent` (an earlier pass) the parent of `pass`.
    pub fn set_parent(&mut self, pass: usize, parent: Option<usize>) -> Result<(), UpdateError> {
        if let Some(p) = parent {
            if p >= pass {
                return Err(UpdateError::BadParent { pass, parent: p });
            }
        }
        let slot = self
            .passes
            .get_mut(pass)
            .ok_or(UpdateError::NoSuchPass(pass))?;
        slot.parent = parent.map(|p| p as u16);
        Ok(())
    }

    /// Appends an instruction to a pass.
    pub fn push_insn(&mut self, pass: usize, insn: Instruction) -> Result<usize, UpdateError> {
        let p = self
            .passes
            .get_mut(pass)
            .ok_or(UpdateError::NoSuchPass(pass))?;
        if p.insns.len() >= MAX_INSNS {
            return Err(UpdateError::TooManyInstructions { pass });
        }
        p.insns.push(insn);
        Ok(p.insns.len() - 1)
    }

    /// Replaces an instruction image. The replacement is no longer the parent's, so its
    /// `copied` mark is cleared unless the image itself sets it.
    pub fn set_insn(
        &mut self,
        pass: usize,
        index: usize,
        insn: Instruction,
    ) -> Result<(), UpdateError> {
        let p = self
            .passes
            .get_mut(pass)
            .ok_or(UpdateError::NoSuchPass(pass))?;
        let slot = p
            .insns
            .get_mut(index)
            .ok_or(UpdateError::NoSuchInstruction { pass, index })?;
        *slot = insn;
        Ok(())
    }

    /// Duplicates pass `parent` as a new pass at the end whose instructions are all
    /// marked `copied`: the seeds' "duplication" that makes a child.
    pub fn dup_pass(&mut self, parent: usize) -> Result<usize, UpdateError> {
        let src = self
            .passes
            .get(parent)
            .ok_or(UpdateError::NoSuchPass(parent))?
            .clone();
        let idx = self.push_pass(src.kind, Some(parent))?;
        self.passes[idx].insns = src.insns.iter().map(|i| i.with_copied(true)).collect();
        Ok(idx)
    }

    /// Adds an anchor (or finds an identical one); returns its index.
    pub fn anchor(&mut self, a: Anchor) -> Result<u8, UpdateError> {
        if let Some(i) = self.anchors.iter().skip(1).position(|&x| x == a) {
            return Ok(i as u8 + 1);
        }
        let idx = self.anchors.len();
        if idx >= MAX_ANCHORS {
            return Err(UpdateError::TooManyAnchors);
        }
        if a.parent() as usize >= idx {
            return Err(UpdateError::BadAnchorParent {
                anchor: idx,
                parent: a.parent() as usize,
            });
        }
        self.anchors.push(a);
        Ok(idx as u8)
    }

    /// Builds a pass set from raw parts without any check of the images, for tests
    /// that must show arbitrary images are safe. Structural limits are still enforced.
    pub fn from_raw(
        passes: Vec<(PassKind, Option<u16>, Vec<Instruction>)>,
        anchors: Vec<Anchor>,
    ) -> Result<PassSet, UpdateError> {
        if passes.len() > MAX_PASSES {
            return Err(UpdateError::TooManyPasses);
        }
        if anchors.len() > MAX_ANCHORS {
            return Err(UpdateError::TooManyAnchors);
        }
        let mut set = PassSet {
            passes: Vec::with_capacity(passes.len()),
            anchors,
            tables: Vec::new(),
        };
        if set.anchors.is_empty() {
            set.anchors.push(Anchor::new(AnchorRule::Const, 0, 0));
        }
        for (i, (kind, parent, insns)) in passes.into_iter().enumerate() {
            if insns.len() > MAX_INSNS {
                return Err(UpdateError::TooManyInstructions { pass: i });
            }
            set.passes.push(Pass {
                kind,
                parent,
                insns,
            });
        }
        Ok(set)
    }
}
