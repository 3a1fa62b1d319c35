use super::*;

fn list(priority: usize, rows: usize, width: usize) -> Part {
    Part::List {
        priority,
        head: "head\n".into(),
        rows: (0..rows).map(|i| format!("{i:0width$}")).collect(),
        tail: "tail\n".into(),
        what: "rows",
    }
}

#[test]
fn lists_that_fit_are_whole() {
    let text = fitted(vec![Part::Fixed("top\n".into()), list(0, 3, 2)], 1000);
    assert_eq!(text, "top\nhead\n00\n01\n02\ntail\n");
}

#[test]
fn the_first_priority_fills_first_and_a_cut_list_counts_what_it_left_out() {
    let parts = vec![
        Part::Fixed("top\n".into()),
        list(1, 100, 50),
        list(0, 10, 50),
    ];
    let text = fitted(parts, 2000);
    assert!(text.len() <= 2000, "{}", text.len());
    // The priority-0 list is whole; the other holds what is left.
    let second = text.split("head\n").nth(2).unwrap();
    assert_eq!(
        second.lines().filter(|l| l.len() == 50).count(),
        10,
        "{text}"
    );
    assert!(
        text.contains("more rows not shown: the comment's limit"),
        "{text}"
    );
    let shown = text.lines().filter(|l| l.len() == 50).count();
    let cut: usize = text
        .split("_… ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert_eq!(shown + cut, 110, "{text}");
}

#[test]
fn a_cut_list_in_a_cell_says_how_many_items_it_left_out() {
    let items: Vec<String> = (0..50).map(|i| format!("figure {i:02} 1 → 2")).collect();
    let shown = cell_list(&items);
    assert!(shown.len() <= CELL, "{shown}");
    let kept = shown.matches("figure ").count();
    assert!(
        shown.ends_with(&format!("; … and {} more", 50 - kept)),
        "{shown}"
    );
    assert!(!shown.contains("bytes"), "{shown}");
    let few = &items[..2];
    assert_eq!(cell_list(few), "figure 00 1 → 2; figure 01 1 → 2");
    let long = ["x".repeat(1000), "y".into()];
    assert!(cell_list(&long).ends_with("more bytes); … and 1 more"));
}

#[test]
fn cells_hold_one_line_of_plain_text() {
    assert_eq!(cell("a|b\n<script>"), "a\\|b &lt;script&gt;");
    assert!(cell(&"x".repeat(1000)).contains("… (700 more bytes)"));
    assert_eq!(code("e::t"), "`e::t`");
    assert_eq!(code("e::a`b|c"), "`` e::a`b\\|c ``");
}
