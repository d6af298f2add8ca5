//! The compiler checks every library function's regions against MBuf: a call
//! whose input or output would stray outside is refused at compile time with
//! the function, the offset and the size, and one that fits compiles.

use netsift_externs::topn::table_len;
use netsift_externs::Library;
use netsift_fpl::externs::Registry;
use netsift_fpl::{compile, ErrorKind, Options};

#[test]
fn every_function_is_refused_one_byte_past_the_end() {
    let mut lib = Library::new();
    lib.aho_corasick("w", &["x"]).unwrap();
    lib.memmem("m", b"y").unwrap();
    let reg = lib.registry();
    let opts = Options {
        mbuf_len: 256,
        ..Options::default()
    };
    let mut checked = 0;
    for f in lib.functions() {
        let (i, o) = (f.input_len(), f.output_len());
        let name = f.name();
        assert!(reg.lookup(name).is_some());
        let fits = format!("R[0] = EXTERN(\"{name}\", {}, {});", 256 - i, 256 - o);
        compile(&fits, &opts, &reg).unwrap_or_else(|e| panic!("{name} fits: {e}"));
        if i > 0 {
            let text = format!("R[0] = EXTERN(\"{name}\", {}, 0);", 257 - i);
            let e = compile(&text, &opts, &reg).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::Unsafe, "{name}");
            let want = format!(
                "EXTERN `{name}` reads its input in {i} bytes at MBuf offset {}, outside the 256-byte MBuf",
                257 - i
            );
            assert!(e.to_string().contains(&want), "{e}");
            checked += 1;
        }
        if o > 0 {
            let text = format!("\n  R[0] = EXTERN(\"{name}\", 0, {});", 257 - o);
            let e = compile(&text, &opts, &reg).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::Unsafe, "{name}");
            assert!(e.to_string().contains("writes its output"), "{e}");
            assert_eq!(e.line(), 2, "{e}");
            checked += 1;
        }
    }
    assert_eq!(checked, 13, "the input and output regions of the library");
}

#[test]
fn a_big_top_n_table_needs_a_big_mbuf() {
    let mut lib = Library::new();
    lib.topn(1024).unwrap();
    let reg = lib.registry();
    let text = "R[0] = EXTERN(topn, 0, 0);";
    assert_eq!(table_len(1024), 16_392);
    let e = compile(text, &Options::default(), &reg).unwrap_err();
    assert!(
        e.to_string()
            .contains("16392 bytes at MBuf offset 0, outside the 4096-byte MBuf"),
        "{e}"
    );
    let big = Options {
        mbuf_len: 16_392,
        ..Options::default()
    };
    compile(text, &big, &reg).unwrap();
    // A table size outside 1..=1024 is refused when the library is configured.
    assert!(Library::new().topn(0).is_err());
    let e = Library::new().topn(1025).unwrap_err().to_string();
    assert!(e.contains("1025") && e.contains("1 to 1024"), "{e}");
}

#[test]
fn unknown_and_misnamed_functions() {
    let reg = Library::new().registry();
    let e = compile(
        "R[0] = EXTERN(\"aho_corasick:none\", 0, 16);",
        &Options::default(),
        &reg,
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("no external function `aho_corasick:none` is registered"),
        "{e}"
    );
    let mut lib = Library::new();
    assert!(lib.aho_corasick("a b", &["x"]).is_err());
    assert!(lib.aho_corasick("", &["x"]).is_err());
    assert!(lib.aho_corasick("ok", &[""]).is_err());
    assert!(lib.aho_corasick::<&str>("ok", &[]).is_err());
    lib.aho_corasick("ok", &["x"]).unwrap();
    let e = lib.aho_corasick("ok", &["y"]).unwrap_err().to_string();
    assert!(e.contains("`aho_corasick:ok` is registered already"), "{e}");
    assert!(lib.memmem("ok", b"").is_err());
    let e = lib
        .aho_corasick_file("f", std::path::Path::new("/nonexistent/worms.txt"))
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("/nonexistent/worms.txt: "), "{e}");
    let dir = std::env::temp_dir().join(format!("netsift-externs-bounds-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("worms.txt");
    std::fs::write(&bad, "# worms\nok\nbad\\q\n").unwrap();
    let e = lib.aho_corasick_file("f", &bad).unwrap_err().to_string();
    std::fs::write(&bad, "# nothing\n").unwrap();
    let empty = lib.aho_corasick_file("f", &bad).unwrap_err().to_string();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        e,
        format!("{}, line 3: unknown escape `\\q`", bad.display())
    );
    assert_eq!(
        empty,
        format!(
            "{}: a pattern set needs at least one pattern",
            bad.display()
        )
    );
}

/// docs/externs.md's table of functions names every function of the library,
/// with the region sizes the registry declares (N = 10, the default).
#[test]
fn the_documented_sizes_are_the_registered_ones() {
    let doc = include_str!("../../../docs/externs.md");
    let mut lib = Library::new();
    lib.aho_corasick("SET", &["x"]).unwrap();
    lib.memmem("NAME", b"y").unwrap();
    let size = |cell: &str| -> usize {
        let cell = cell.trim();
        if cell == "8 + 16 N" {
            return table_len(10);
        }
        let digits: String = cell.chars().take_while(char::is_ascii_digit).collect();
        digits
            .parse()
            .unwrap_or_else(|_| panic!("a size: {cell:?}"))
    };
    let mut rows = std::collections::BTreeMap::new();
    for line in doc.lines() {
        let cells: Vec<&str> = line.split('|').collect();
        if let [_, name, input, output, ..] = cells[..] {
            if let Some(name) = name
                .trim()
                .strip_prefix('`')
                .and_then(|n| n.strip_suffix('`'))
            {
                if input.trim().starts_with(|c: char| c.is_ascii_digit()) {
                    rows.insert(name.to_string(), (size(input), size(output)));
                }
            }
        }
    }
    let registered: std::collections::BTreeMap<_, _> = lib
        .functions()
        .iter()
        .map(|f| (f.name().to_string(), (f.input_len(), f.output_len())))
        .collect();
    assert_eq!(rows, registered);
}
