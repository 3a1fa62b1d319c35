//! The kinds of assertion: the keys of a task set's `assertions` object, one enum that the
//! validation, the assertion engine, results files and messages all derive from.

/// One kind of assertion: a key of the `assertions` object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AssertionKind {
    /// `toolsUsed`
    ToolsUsed,
    /// `requireAny`
    RequireAny,
    /// `toolsNotUsed`
    ToolsNotUsed,
    /// `minToolCalls`
    MinToolCalls,
    /// `maxToolCalls`
    MaxToolCalls,
    /// `maxToolErrors`
    MaxToolErrors,
    /// `maxToolResultTokens`
    MaxToolResultTokens,
    /// `maxToolDefinitionTokens`
    MaxToolDefinitionTokens,
    /// `resourcesRead`
    ResourcesRead,
    /// `resourcesNotRead`
    ResourcesNotRead,
    /// `promptsUsed`
    PromptsUsed,
    /// `promptsNotUsed`
    PromptsNotUsed,
    /// `callOrder`
    CallOrder,
    /// `noDuplicateCalls`
    NoDuplicateCalls,
    /// `afterFault`
    AfterFault,
    /// `skillsLoaded`
    SkillsLoaded,
    /// `skillsNotLoaded`
    SkillsNotLoaded,
    /// `elicitations`
    Elicitations,
    /// `maxElicitations`
    MaxElicitations,
    /// `noElicitation`
    NoElicitation,
}

impl AssertionKind {
    /// The key as the eval file, results files and messages spell it, e.g. `toolsUsed`.
    pub fn key(self) -> &'static str {
        match self {
            AssertionKind::ToolsUsed => "toolsUsed",
            AssertionKind::RequireAny => "requireAny",
            AssertionKind::ToolsNotUsed => "toolsNotUsed",
            AssertionKind::MinToolCalls => "minToolCalls",
            AssertionKind::MaxToolCalls => "maxToolCalls",
            AssertionKind::MaxToolErrors => "maxToolErrors",
            AssertionKind::MaxToolResultTokens => "maxToolResultTokens",
            AssertionKind::MaxToolDefinitionTokens => "maxToolDefinitionTokens",
            AssertionKind::ResourcesRead => "resourcesRead",
            AssertionKind::ResourcesNotRead => "resourcesNotRead",
            AssertionKind::PromptsUsed => "promptsUsed",
            AssertionKind::PromptsNotUsed => "promptsNotUsed",
            AssertionKind::CallOrder => "callOrder",
            AssertionKind::NoDuplicateCalls => "noDuplicateCalls",
            AssertionKind::AfterFault => "afterFault",
            AssertionKind::SkillsLoaded => "skillsLoaded",
            AssertionKind::SkillsNotLoaded => "skillsNotLoaded",
            AssertionKind::Elicitations => "elicitations",
            AssertionKind::MaxElicitations => "maxElicitations",
            AssertionKind::NoElicitation => "noElicitation",
        }
    }
}

impl std::fmt::Display for AssertionKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.key())
    }
}
