//! The LLM judge as mcpchecker references it (`llmJudge.ref`), and what cannot judge.

use super::{MCP, TASK, files};

fn eval_with_judge(judge: &str) -> String {
    format!(
        "kind: Eval\nmetadata: {{name: e}}\nconfig:\n  agent: {{type: builtin.claude-code}}\n  mcpConfigFile: mcp.yaml\n  llmJudge:\n{judge}  taskSets:\n    - path: task.yaml\n"
    )
}

#[test]
fn the_judge_is_an_llm_agent_ref_as_mcpchecker_documents() {
    use mcpeval::config::{JudgeConfig, load_eval};
    let judge_agent = (
        "agents/judge.yaml",
        "kind: Agent\nmetadata: {name: judge}\nbuiltin: {type: llm-agent, model: 'openai:gpt-4o-mini'}\n",
    );
    for (judge, model) in [
        (
            "    ref: {type: builtin.llm-agent, model: 'openai:gpt-4o'}\n",
            "gpt-4o",
        ),
        (
            "    ref: {type: builtin.openai-agent, model: gpt-4}\n",
            "gpt-4",
        ),
        (
            "    ref: {type: file, path: agents/judge.yaml}\n",
            "gpt-4o-mini",
        ),
    ] {
        let dir = files(&[
            MCP,
            TASK,
            judge_agent,
            ("eval.yaml", &eval_with_judge(judge)),
        ]);
        let eval =
            load_eval(&dir.path().join("eval.yaml")).unwrap_or_else(|e| panic!("{judge}: {e}"));
        assert_eq!(
            eval.llm_judge,
            Some(JudgeConfig::Model(model.into())),
            "{judge}"
        );
    }
    for (judge, key, words) in [
        (
            "    ref: {type: builtin.claude-code}\n",
            "config.llmJudge.ref",
            "`claude-code` cannot judge yet",
        ),
        (
            "    ref: {type: builtin.llm-agent}\n",
            "config.llmJudge.ref.model",
            "needs `model`",
        ),
        (
            "    ref: {type: builtin.llm-agent, model: 'gemini:pro'}\n",
            "config.llmJudge.ref.model",
            "not supported yet",
        ),
        (
            "    ref: {type: builtin.llm-agent, model: gpt-4o}\n    env: {baseUrlKey: A, apiKeyKey: B, modelNameKey: C}\n",
            "config.llmJudge",
            "both `env` and `ref`",
        ),
    ] {
        let dir = files(&[MCP, TASK, ("eval.yaml", &eval_with_judge(judge))]);
        let errors = load_eval(&dir.path().join("eval.yaml")).unwrap_err().0;
        assert!(
            errors
                .iter()
                .any(|e| e.key_path == key && e.message.contains(words)),
            "{judge}: {errors:?}"
        );
    }
}
