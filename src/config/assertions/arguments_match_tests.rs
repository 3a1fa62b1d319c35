//! How an `arguments:` pattern matches a call's arguments (README, "Assertions").

use serde_json::{Value, json};

use super::*;

fn pattern(written: Value) -> ArgumentPattern {
    ArgumentPattern::from_json(written).unwrap()
}

fn matches(written: Value, actual: Value) -> bool {
    pattern(written).matches(Some(&actual))
}

/// The first difference, as a message shows it.
fn difference(written: Value, actual: Value) -> String {
    match pattern(written).compare(Some(&actual)).difference {
        Some(difference) => difference.to_string(),
        None => panic!("expected a difference"),
    }
}

#[test]
fn keys_not_named_are_ignored() {
    assert!(matches(json!({"a": 1}), json!({"a": 1, "b": 2})));
    assert!(matches(json!({}), json!({"anything": true})));
    assert!(!matches(json!({"a": 1, "c": 3}), json!({"a": 1, "b": 2})));
}

#[test]
fn a_named_key_must_be_present_even_for_null() {
    assert!(matches(json!({"a": null}), json!({"a": null})));
    assert!(!matches(json!({"a": null}), json!({})));
    assert_eq!(
        difference(json!({"a": {"$type": "null"}}), json!({})),
        "arguments.a: expected type null, found no such key"
    );
}

#[test]
fn no_arguments_compare_as_an_empty_object() {
    assert!(pattern(json!({})).matches(None));
    assert!(!pattern(json!({"a": 1})).matches(None));
}

#[test]
fn nested_maps_are_subset_matches_too() {
    let written = json!({"spec": {"containers": [{"image": {"$match": "^nginx"}}]}});
    let actual =
        json!({"spec": {"replicas": 2, "containers": [{"name": "web", "image": "nginx:1.27"}]}});
    assert!(matches(written.clone(), actual));
    assert_eq!(
        difference(
            written,
            json!({"spec": {"containers": [{"image": "httpd"}]}})
        ),
        r#"arguments.spec.containers[0].image: expected /^nginx/ to match, found "httpd""#
    );
}

#[test]
fn arrays_match_element_by_element_with_the_same_length() {
    assert!(matches(json!({"ids": [1, 2]}), json!({"ids": [1, 2]})));
    assert!(!matches(json!({"ids": [2, 1]}), json!({"ids": [1, 2]})));
    assert_eq!(
        difference(json!({"ids": [1, 2]}), json!({"ids": [1, 2, 3]})),
        "arguments.ids: expected an array of 2 items, found [1,2,3] (3 items)"
    );
    assert_eq!(
        difference(json!({"ids": [1]}), json!({"ids": []})),
        "arguments.ids: expected an array of 1 item, found [] (0 items)"
    );
    // Elements are matched as subsets themselves.
    assert!(matches(
        json!({"items": [{"k": "a"}, {}]}),
        json!({"items": [{"k": "a", "v": 1}, {"k": "b"}]})
    ));
    assert_eq!(
        difference(json!({"ids": [1, 2]}), json!({"ids": "1,2"})),
        r#"arguments.ids: expected an array, found "1,2""#
    );
}

#[test]
fn match_is_an_unanchored_regex_over_a_string() {
    assert!(matches(
        json!({"path": {"$match": "tmp"}}),
        json!({"path": "/var/tmp/x"})
    ));
    assert_eq!(
        difference(
            json!({"path": {"$match": "^/tmp/"}}),
            json!({"path": "/etc/passwd"})
        ),
        r#"arguments.path: expected /^\/tmp\// to match, found "/etc/passwd""#
    );
}

#[test]
fn match_reads_other_values_as_their_compact_json() {
    let m =
        |regex: &str, actual: Value| matches(json!({"v": {"$match": regex}}), json!({"v": actual}));
    assert!(m("^42$", json!(42)));
    assert!(m(r"^1\.5$", json!(1.5)));
    assert!(m("^true$", json!(true)));
    assert!(m("^null$", json!(null)));
    assert!(m(r#"^\["a",1\]$"#, json!(["a", 1])));
    assert!(m(r#"^\{"k":"v"\}$"#, json!({"k": "v"})));
    // A string is its text, without quotes.
    assert!(!m("^\"", json!("quoted?")));
}

#[test]
fn type_names_each_json_type() {
    let cases = [
        ("string", json!("x"), json!(1)),
        ("number", json!(1.5), json!("1.5")),
        ("integer", json!(3), json!(3.5)),
        ("boolean", json!(false), json!("false")),
        ("array", json!([]), json!({})),
        ("object", json!({}), json!([])),
        ("null", json!(null), json!(0)),
    ];
    for (name, yes, no) in cases {
        let written = json!({"v": {"$type": name}});
        assert!(matches(written.clone(), json!({"v": yes})), "{name}");
        assert!(!matches(written, json!({"v": no})), "{name} matched {no}");
    }
}

#[test]
fn integers_are_numbers_and_integral_floats_are_integers() {
    let number = json!({"v": {"$type": "number"}});
    let integer = json!({"v": {"$type": "integer"}});
    assert!(matches(number, json!({"v": 7})));
    assert!(matches(integer.clone(), json!({"v": 7.0})));
    assert!(matches(integer.clone(), json!({"v": u64::MAX})));
    assert!(matches(integer.clone(), json!({"v": -3})));
    assert_eq!(
        difference(integer, json!({"v": 7.25})),
        "arguments.v: expected type integer, found 7.25"
    );
}

#[test]
fn literals_compare_as_json_values() {
    assert!(matches(json!({"n": 1}), json!({"n": 1.0})));
    assert!(matches(json!({"n": 2.5}), json!({"n": 2.5})));
    assert!(!matches(json!({"n": 1}), json!({"n": "1"})));
    assert!(!matches(json!({"b": true}), json!({"b": "true"})));
    assert!(matches(json!({"s": "x"}), json!({"s": "x"})));
    assert_eq!(
        difference(json!({"n": 1}), json!({"n": 2})),
        "arguments.n: expected 1, found 2"
    );
}

#[test]
fn the_first_difference_follows_the_pattern_order_and_the_count_goes_on() {
    let written = json!({"a": 1, "b": 2, "c": 3});
    let comparison = pattern(written).compare(Some(&json!({"a": 0, "b": 2, "c": 3})));
    assert_eq!(comparison.matched, 2);
    assert_eq!(
        comparison.difference.unwrap().to_string(),
        "arguments.a: expected 1, found 0"
    );
}

#[test]
fn keys_that_are_not_plain_words_are_quoted_in_paths() {
    assert_eq!(
        difference(json!({"a.b": 1}), json!({})),
        r#"arguments["a.b"]: expected 1, found no such key"#
    );
}

#[test]
fn regexes_are_shown_between_slashes_with_slashes_escaped_once() {
    assert_eq!(super::slashes_escaped("^/tmp"), r"^\/tmp");
    assert_eq!(super::slashes_escaped(r"^\/tmp"), r"^\/tmp");
    assert_eq!(super::slashes_escaped(r"a\\/b"), r"a\\\/b");
}
