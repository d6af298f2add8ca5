//! A parsed flow checked against the class table: every element becomes a
//! [`Filter`] (its class, its checked arguments and its MBuf size), or the flow is
//! refused with an error that names the element, its position and the field.
//!
//! An element's fields after the class are its arguments, except that with two
//! fields or more the last is the MBuf size: `(sampler,2,4)` is rate 2 with 4
//! bytes of MBuf, `(bytecount,,8)` no argument (one empty field) with 8, and
//! `(device,eth0)` one argument with the class's default MBuf.
//!
//! The callable filters defined before the flow (`name = (fpl,"…",64);`) are
//! checked the same way, must be `fpl` and have distinct names, and become
//! [`Callable`]s that every `fpl` element of the flow may call.

use crate::class::{self, Class, Role, Value, MAX_MBUF};
use crate::error::{Error, ErrorKind};
use crate::limits::Limits;
use crate::span::Span;
use crate::syntax::ast::{Definition, Element, Field};
use crate::syntax::lower::{lower, Flow};
use crate::syntax::parse_expr;

/// Who asks for a flow: some classes are for root only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Privilege {
    /// An ordinary user.
    User,
    /// Root, who may also use root-only classes (`native`).
    Root,
}

/// One element of a flow, checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Filter {
    /// Its class.
    pub class: &'static Class,
    /// Its arguments, checked and in canonical form.
    pub args: Vec<Value>,
    /// Its MBuf size in bytes.
    pub mbuf: u32,
    /// The filters its program may call with `EXTERN`: for an `fpl` element,
    /// every callable filter of its flow (part of what makes two instances
    /// one, so elements calling different definitions never share one);
    /// empty for the other classes.
    pub calls: Vec<Callable>,
}

/// A callable filter of a flow, checked: an FPL program and its MBuf size
/// (the window of the caller's MBuf it runs on), called by its name.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Callable {
    /// The name `EXTERN` calls it by.
    pub name: String,
    /// Its FPL program.
    pub program: String,
    /// Its MBuf size in bytes.
    pub mbuf: u32,
}

/// A flow definition checked whole: the flow as given and a filter per element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlowSpec {
    /// The flow as parsed.
    pub flow: Flow,
    /// `filters[i]` is `flow.elements[i]`, checked.
    pub filters: Vec<Filter>,
    /// Elements put in front of the flow as written ([`FlowSpec::behind`]):
    /// the client's element `i` is `elements[prefix + i]`.
    pub prefix: usize,
    /// `callable[i]` is `flow.definitions[i]`, checked.
    pub callable: Vec<Callable>,
}

impl FlowSpec {
    /// Parses `text` and checks every element, for a caller with `privilege`.
    pub fn parse(text: &str, privilege: Privilege, limits: &Limits) -> Result<FlowSpec, Error> {
        let flow = lower(text, parse_expr(text, limits)?);
        let callable = flow
            .definitions
            .iter()
            .enumerate()
            .map(|(k, d)| check_definition(&flow, k, d, privilege))
            .collect::<Result<Vec<_>, _>>()?;
        let filters = flow
            .elements
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let mut f = check_element(&flow, &place(i, e), Some(i), e, privilege)?;
                if f.class.name == "fpl" {
                    f.calls = callable.clone();
                }
                Ok::<_, Error>(f)
            })
            .collect::<Result<_, _>>()?;
        Ok(FlowSpec {
            flow,
            filters,
            prefix: 0,
            callable,
        })
    }
}

/// Definition `k` checked: an `fpl` element with a name no earlier one has.
fn check_definition(
    flow: &Flow,
    k: usize,
    d: &Definition,
    privilege: Privilege,
) -> Result<Callable, Error> {
    let fail = |msg: String, span: Span| Err(Error::new(ErrorKind::Invalid, msg, span, &flow.text));
    let at = format!("definition `{}`", d.name);
    if let Some(first) = flow.definitions[..k].iter().find(|e| e.name == d.name) {
        return fail(
            format!(
                "{at}: the name is defined twice (first at byte {})",
                first.name_span.start
            ),
            d.name_span,
        );
    }
    let f = check_element(flow, &at, None, &d.element, privilege)?;
    if f.class.name != "fpl" {
        return fail(
            format!(
                "{at}: class {} cannot be called; only fpl filters are callable",
                f.class.name
            ),
            d.element.class().span,
        );
    }
    let program = match f.args.first() {
        Some(Value::Text(t)) => t.clone(),
        _ => String::new(),
    };
    Ok(Callable {
        name: d.name.clone(),
        program,
        mbuf: f.mbuf,
    })
}

/// The place of an element in messages: `element 3 (sampler)`.
fn place(i: usize, e: &Element) -> String {
    format!("element {} ({})", i + 1, e.class().text)
}

/// Element `e` checked against the class table; `place` names it in messages,
/// `i` is its index in the flow (`None` for a definition).
fn check_element(
    flow: &Flow,
    place: &str,
    i: Option<usize>,
    e: &Element,
    privilege: Privilege,
) -> Result<Filter, Error> {
    let fail = |kind, msg: String, span: Span| Err(Error::new(kind, msg, span, &flow.text));
    let Some(class) = class::lookup(&e.class().text) else {
        let names: Vec<_> = class::CLASSES.iter().map(|c| c.name).collect();
        return fail(
            ErrorKind::Invalid,
            format!(
                "{place}: unknown filter class {:?}; the classes are {}",
                e.class().text,
                names.join(", ")
            ),
            e.class().span,
        );
    };
    if class.root_only && privilege != Privilege::Root {
        return fail(
            ErrorKind::Forbidden,
            format!("{place}: class {} is for root only", class.name),
            e.class().span,
        );
    }
    if class.role == Role::Source {
        if let Some(up) = i.and_then(|i| flow.upstream(i).next()) {
            return fail(
                ErrorKind::Invalid,
                format!(
                    "{place}: a source takes no input, but element {} feeds it; put it first",
                    up + 1
                ),
                e.span,
            );
        }
    }
    let (args, mbuf_field) = split_fields(&e.fields[1..]);
    let invalid =
        |(m, s): Fault| Error::new(ErrorKind::Invalid, format!("{place}: {m}"), s, &flow.text);
    let args = check_args(class, args, e).map_err(invalid)?;
    let mbuf = check_mbuf(class, &args, mbuf_field).map_err(invalid)?;
    Ok(Filter {
        class,
        args,
        mbuf,
        calls: Vec::new(),
    })
}

/// The argument fields and the MBuf field, by the rule in the module comment.
fn split_fields(rest: &[Field]) -> (&[Field], Option<&Field>) {
    match rest {
        [] => (&[], None),
        [only] if !only.quoted && only.text.is_empty() => (&[], None),
        [_] => (rest, None),
        [args @ .., mbuf] => match args {
            [only] if !only.quoted && only.text.is_empty() => (&[], Some(mbuf)),
            _ => (args, Some(mbuf)),
        },
    }
}

type Fault = (String, Span);

fn check_args(class: &Class, fields: &[Field], e: &Element) -> Result<Vec<Value>, Fault> {
    if fields.len() < class.min_args() {
        let missing = &class.params[fields.len()];
        return Err((
            format!(
                "{} takes {} argument(s), missing its {}",
                class.name,
                class.min_args(),
                missing.name
            ),
            e.span,
        ));
    }
    fields
        .iter()
        .enumerate()
        .map(|(n, f)| {
            let Some(p) = class.param(n) else {
                return Err((
                    format!(
                        "{} takes {} argument(s), found {} (the MBuf size goes last: (class,args,mbufsize))",
                        class.name,
                        class.params.len(),
                        fields.len()
                    ),
                    f.span,
                ));
            };
            p.kind
                .check(&f.text)
                .map_err(|m| (format!("argument {} ({}) {m}", n + 1, p.name), f.span))
        })
        .collect()
}

fn check_mbuf(class: &Class, args: &[Value], field: Option<&Field>) -> Result<u32, Fault> {
    let (default, min, max) = class.mbuf_range(args);
    let Some(f) = field.filter(|f| f.quoted || !f.text.is_empty()) else {
        return Ok(default);
    };
    let size = match f.text.parse::<u64>() {
        Ok(n) if !f.quoted => n,
        _ => {
            let hint = if class.variadic {
                format!(
                    "; with several arguments end with a comma, as ({},\"a\",\"b\",)",
                    class.name
                )
            } else {
                String::new()
            };
            return Err((
                format!(
                    "the MBuf size must be a number of bytes, found {:?}{hint}",
                    f.text
                ),
                f.span,
            ));
        }
    };
    if size < min as u64 || size > max.min(MAX_MBUF) as u64 {
        let allowed = if min == max {
            format!("exactly {min}")
        } else {
            format!("from {min} to {max}")
        };
        return Err((
            format!("MBuf of {size} bytes; {} allows {allowed}", class.name),
            f.span,
        ));
    }
    Ok(size as u32)
}
