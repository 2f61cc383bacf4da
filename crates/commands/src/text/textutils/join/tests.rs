use crate::text::textutils::join::{Joiner, Parsed, parse, split_fields};

#[test]
fn fields_as_gnu_splits_them() {
    assert_eq!(split_fields(b"  a b\tc", None), vec![&b"a"[..], b"b", b"c"]);
    assert_eq!(split_fields(b"a b ", None), vec![&b"a"[..], b"b", b""]);
    assert_eq!(split_fields(b"   ", None), Vec::<&[u8]>::new());
    assert_eq!(
        split_fields(b"a,,b", Some(b',')),
        vec![&b"a"[..], b"", b"b"]
    );
    assert_eq!(split_fields(b"", Some(b',')), Vec::<&[u8]>::new());
    assert_eq!(split_fields(b"a b", Some(b'\n')), vec![&b"a b"[..]]);
}

fn run(args: &[&str], a: &[u8], b: &[u8]) -> (String, Vec<String>) {
    let args: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
    let Parsed::Run(options, names) = parse(&args) else {
        return (String::new(), vec!["parse failed".to_owned()]);
    };
    let mut joiner = Joiner::new(&options, names, [a, b]);
    let _ = joiner.join();
    (
        String::from_utf8_lossy(&joiner.out).into_owned(),
        joiner.messages,
    )
}

#[test]
fn joins_and_checks_order() {
    let (out, messages) = run(&["a", "b"], b"1 alice\n2 bob\n", b"1 nyc\n3 sf\n");
    assert_eq!(out, "1 alice nyc\n");
    assert!(messages.is_empty());
    let (out, messages) = run(&["a.txt", "b.txt"], b"2 bob\n1 alice\n", b"1 nyc\n2 sf\n");
    assert_eq!(out, "2 bob sf\n");
    assert_eq!(messages, vec!["a.txt:2: is not sorted: 1 alice".to_owned()]);
}

#[test]
fn output_formats() {
    let (out, _) = run(
        &["-a1", "-e", "X", "-o", "0,1.2,2.2", "a", "b"],
        b"1 a\n2 b\n",
        b"1 c\n",
    );
    assert_eq!(out, "1 a c\n2 b X\n");
    let (out, _) = run(
        &["-o", "auto", "-e", "-", "-a2", "a", "b"],
        b"1 a\n",
        b"1 c\n3 d\n",
    );
    assert_eq!(out, "1 a c\n3 - d\n");
}
