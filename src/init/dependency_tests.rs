use super::*;

fn source(published: bool, git: Option<GitSource>) -> BuildSource {
    BuildSource {
        version: "0.3.1".to_owned(),
        published,
        git,
        path: "/src/mcpeval".to_owned(),
    }
}

fn checkout(remote: Option<&str>, tag: Option<&str>, on_remote: bool) -> Option<GitSource> {
    Some(GitSource {
        remote: remote.map(str::to_owned),
        rev: "0123456789abcdef0123456789abcdef01234567".to_owned(),
        tag: tag.map(str::to_owned),
        on_remote,
    })
}

fn line(kind: Option<DependencyKind>, source: &BuildSource) -> (String, Option<String>) {
    let (dependency, warning) = Dependency::choose(kind, source).unwrap();
    (dependency.line(Path::new("/work/acme")), warning)
}

const URL: &str = "https://git.example/acme/mcpeval.git";

#[test]
fn a_published_crate_writes_its_version() {
    let (line, warning) = line(None, &source(true, None));
    assert_eq!(
        line,
        r#"mcpeval-harness = { version = "0.3.1", default-features = false }"#
    );
    assert_eq!(warning, None);
}

#[test]
fn a_checkout_with_a_remote_writes_the_remote_and_its_commit_or_tag() {
    let (text, warning) = line(None, &source(false, checkout(Some(URL), None, true)));
    assert_eq!(
        text,
        format!(
            r#"mcpeval-harness = {{ git = "{URL}", rev = "0123456789abcdef0123456789abcdef01234567", default-features = false }}"#
        )
    );
    assert_eq!(warning, None);
    let (text, _) = line(
        None,
        &source(false, checkout(Some(URL), Some("v0.3.1"), true)),
    );
    assert_eq!(
        text,
        format!(
            r#"mcpeval-harness = {{ git = "{URL}", tag = "v0.3.1", default-features = false }}"#
        )
    );
    // A commit no remote branch holds: written, with a warning to push it.
    let (_, warning) = line(None, &source(false, checkout(Some(URL), None, false)));
    assert!(warning.unwrap().contains("push it"));
}

#[test]
fn otherwise_the_path_relative_to_the_crate_with_a_warning() {
    let (text, warning) = line(None, &source(false, checkout(None, None, false)));
    // Only the root in common: the absolute path.
    assert_eq!(
        text,
        r#"mcpeval-harness = { path = "/src/mcpeval", default-features = false }"#
    );
    assert!(warning.unwrap().contains("resolves on this machine only"));
    let (dependency, _) = Dependency::choose(None, &source(false, None)).unwrap();
    assert_eq!(
        dependency.line(Path::new("/src/mcpeval/examples/acme")),
        r#"mcpeval-harness = { path = "../..", default-features = false }"#
    );
    let (line, warning) = dependency.install_script(Path::new("/src/mcpeval/examples/acme"));
    assert_eq!(line, "cargo install --locked --path ../..");
    assert!(warning.unwrap().contains("GitHub's runners do not have"));
}

#[test]
fn an_explicit_kind_wins_and_git_without_a_remote_is_refused() {
    let published = source(true, None);
    let (text, _) = line(Some(DependencyKind::Path), &published);
    assert!(text.contains("path = "), "{text}");
    let (text, _) = line(
        Some(DependencyKind::Version),
        &source(false, checkout(Some(URL), None, true)),
    );
    assert_eq!(
        text,
        r#"mcpeval-harness = { version = "0.3.1", default-features = false }"#
    );
    for source in [published, source(false, checkout(None, None, false))] {
        let error = Dependency::choose(Some(DependencyKind::Git), &source).unwrap_err();
        assert!(matches!(error, InitError::Usage(_)));
        let error = error.to_string();
        assert!(
            error.starts_with("--dependency git: this mcpeval knows no git URL to depend on")
                && error.contains("pass --dependency version"),
            "{error}"
        );
    }
}

#[test]
fn the_install_line_matches_the_dependency() {
    let version = Dependency::Version("0.3.1".to_owned());
    let root = Path::new("/work/acme");
    assert_eq!(
        version.install_script(root),
        (
            "cargo binstall --no-confirm mcpeval-harness@0.3.1 || cargo install --locked \
         mcpeval-harness --version 0.3.1"
                .to_owned(),
            None
        )
    );
    let git = Dependency::Git {
        url: "file:///tmp/a b/mcpeval.git".to_owned(),
        at: GitRef::Rev("abc".to_owned()),
    };
    assert_eq!(
        git.install_script(root).0,
        "cargo install --locked --git 'file:///tmp/a b/mcpeval.git' --rev abc mcpeval-harness"
    );
}
