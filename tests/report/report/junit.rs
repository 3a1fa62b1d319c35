//! The JUnit file of the merged shards: one test case per test, times and failure messages.

use super::{merged, text};

#[test]
fn junit_has_one_testcase_per_test_with_times_and_failure_messages() {
    let dir = tempfile::tempdir().unwrap();
    let (_, junit, out) = merged(dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let xml = std::fs::read_to_string(&junit).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    // docs::search ran twice (1 of 2 passed, no minPassRate: it failed): one test case.
    assert_eq!(
        (root.attribute("tests"), root.attribute("failures")),
        (Some("4"), Some("2"))
    );
    let suites: Vec<_> = root
        .children()
        .filter(|n| n.has_tag_name("testsuite"))
        .collect();
    assert_eq!(
        suites
            .iter()
            .map(|s| s.attribute("name").unwrap())
            .collect::<Vec<_>>(),
        ["docs", "k8s"]
    );
    let cases: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    assert_eq!(cases.len(), 4);
    for case in &cases {
        let time: f64 = case.attribute("time").unwrap().parse().unwrap();
        assert!(time > 0.0, "{case:?}");
    }
    let create = cases
        .iter()
        .find(|c| c.attribute("name") == Some("create-pod"))
        .unwrap();
    assert_eq!(create.attribute("classname"), Some("k8s"));
    assert_eq!(create.attribute("time"), Some("3.000"));
    let failure = create
        .children()
        .find(|n| n.has_tag_name("failure"))
        .unwrap();
    assert!(
        failure
            .attribute("message")
            .unwrap()
            .starts_with("toolsUsed (config.taskSets[0])")
    );
    assert_eq!(
        failure.text().unwrap(),
        "1 assertion failed:\n  toolsUsed (config.taskSets[0]):\n      expected: a tool call <pods_list> & more"
    );
    let search = cases
        .iter()
        .find(|c| c.attribute("name") == Some("search"))
        .unwrap();
    let failure = search.children().find(|n| n.is_element()).unwrap();
    assert_eq!(
        failure.attribute("message"),
        Some("1 of 2 runs passed (50%, 95% Wilson interval 9%–91%); minPassRate 1")
    );
    let passed = cases
        .iter()
        .find(|c| c.attribute("name") == Some("list-pods"))
        .unwrap();
    assert!(passed.children().all(|n| !n.has_tag_name("failure")));
}
