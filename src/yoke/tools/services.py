"""The session's named services: what tools and the session's parts share, one typed record per session
(`SessionState.services`), instead of a bag of string keys.

A sub-agent's record is made by `for_child`: it shares the services named there (the sandbox Bash runs in,
the task list) and starts the rest empty. The services of layers above the tools' (the agent runner, the task list, the skills
runtime, the extensions) are held untyped here: their owners read them with their own types.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from yoke.records import Record

if TYPE_CHECKING:  # counted by .importlinter: these point down (or across this layer)
    from yoke.sandbox.settings import SandboxSettings
    from yoke.tools.shell.state import ShellState
    from yoke.tools.web.fetch import PageCache

# Which of the files a search found below a folder (names relative to it) to leave out; the folder's real
# path when the search followed no link below it (permissions/gate_actions.py `withheld_among`)
FoundCheck = Callable[[list[str], str, str | None], set[str]]
# The services of the layers above this one, held here and handed on by the tools; this layer may not name
# their types (imports point down, type-only ones too), their owners know them:
AgentRunner = Any  # agents/runner.py AgentRunner: the Agent tool's runner
TaskList = Any  # agents/task_list.py TaskList
SkillRuntime = Any  # skills/runtime.py SkillRuntime
Extensions = Any  # skills/session.py Extensions
PermissionGate = (
    Any  # permissions/pipeline.py PermissionGate: what `for_gate` reads the sandbox and checks from
)


class SessionServices(Record):
    __slots__ = (
        "sandbox",
        "sandbox_excluded",
        "read_withheld",
        "read_denied",
        "shell",
        "todos",
        "plan",
        "plan_file",
        "inbox",
        "post_background",
        "web_fetch_cache",
        "small_model",
        "confinement_works",
        "confinement_note",
        "deny_rules_warned",
        "agents",
        "task_list",
        "skills",
        "extensions",
        "lsp",
        "scheduler",
        "host_link",
    )

    def __init__(
        self,
        sandbox: SandboxSettings | None = None,
        sandbox_excluded: Callable[[str], bool] | None = None,
        read_withheld: FoundCheck | None = None,
        read_denied: FoundCheck | None = None,
        task_list: TaskList | None = None,
        agents: AgentRunner | None = None,
        todos: list[dict[str, Any]] | None = None,
        inbox: list[str] | None = None,
        skills: SkillRuntime | None = None,
        extensions: Extensions | None = None,
        post_background: Callable[[Any], None] | None = None,
    ) -> None:
        self.sandbox = sandbox  # the sandbox Bash runs in (the gate's)
        self.sandbox_excluded = sandbox_excluded  # whether a command line runs outside it (excludedCommands)
        self.read_withheld = read_withheld  # Grep leaves out what this says the model may not read
        self.read_denied = read_denied  # Glob leaves out what a deny rule covers
        self.shell: ShellState | None = None  # Bash's snapshot and background tasks, made on first use
        self.todos: list[dict[str, Any]] = todos or []  # TodoWrite's current list (kept across compaction)
        self.plan: str | None = None  # the plan most recently presented (ExitPlanMode)
        self.plan_file: str | Path | None = None  # the file the plan was written to, if a front-end keeps one
        self.inbox = inbox  # the loop's inbox (`Agent.inbox`): texts for the model's next request
        # where background work's events go once its call has returned (the session's `post_background`)
        self.post_background = post_background
        self.web_fetch_cache: PageCache | None = None
        self.small_model: Callable[[str, str], Awaitable[str]] | None = None  # WebFetch's page summariser
        self.confinement_works: bool | None = None  # whether bubblewrap confinement ran here (None: untried)
        self.confinement_note = ""  # said once with the next Bash result when it did not
        self.deny_rules_warned = False  # the stderr line: deny rules hold only through the analyser
        self.agents = agents  # the Agent tool's runner (None: no sub-agents here)
        self.task_list = task_list  # TaskCreate and friends
        self.skills = skills  # the Skill tool's runtime
        self.extensions = extensions  # plugins, skills, commands and the output style
        self.lsp: Any = (
            None  # the session's language servers (lsp.manager.LspManager), shared with sub-agents
        )
        self.scheduler: Any = None  # tools/schedule.py Scheduler: the main session's scheduled prompts
        # a hosted session's request to its host (ListAgents/SendMessage across the host's sessions), or None
        self.host_link: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]] | None = None

    @classmethod
    def for_gate(
        cls,
        gate: PermissionGate,
        task_list: TaskList | None = None,
        agents: AgentRunner | None = None,
        todos: list[dict[str, Any]] | None = None,
        inbox: list[str] | None = None,
        skills: SkillRuntime | None = None,
        extensions: Extensions | None = None,
        post_background: Callable[[Any], None] | None = None,
    ) -> SessionServices:
        """A session's services, with what the tools take from its gate: the sandbox Bash runs in, and the
        verdicts Grep and Glob filter the files below their folder with."""
        return cls(
            sandbox=gate.sandbox,
            sandbox_excluded=gate.excluded_from_sandbox,
            read_withheld=gate.withheld_among,
            read_denied=gate.denied_among,
            task_list=task_list,
            agents=agents,
            todos=todos,
            inbox=inbox,
            skills=skills,
            extensions=extensions,
            post_background=post_background,
        )

    def for_child(
        self, agents: AgentRunner | None = None, post_background: Callable[[Any], None] | None = None
    ) -> SessionServices:
        """A sub-agent's services: the same sandbox and task list; its own shell, todos, plan, inbox and
        runner (`agents`: None when it may start no sub-agents of its own)."""
        child = SessionServices(
            sandbox=self.sandbox,
            sandbox_excluded=self.sandbox_excluded,
            task_list=self.task_list,
            agents=agents,
            inbox=[],
            post_background=post_background,
        )
        child.lsp = self.lsp
        return child
