"""The option table: every setting once, with its CLI, ini and environment spellings.

Kept free of heavy imports: the plugin registers these options in every pytest session.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Source = Literal["cli", "env", "ini"]
SOURCES: tuple[Source, ...] = ("cli", "env", "ini")
"""Where a setting can be given, in order of precedence."""


def spelling(source: Source, name: str) -> str:
    """How the setting ``name`` (a field, or a former name) is written in ``source``:
    ``--r2r-max-tokens``, ``R2R_MAX_TOKENS`` or ``r2r_max_tokens``."""
    if source == "cli":
        return "--r2r-" + name.replace("_", "-")
    return "R2R_" + name.upper() if source == "env" else "r2r_" + name


SWITCH_ON = ("1", "true", "yes", "on")
SWITCH_OFF = ("0", "false", "no", "off")
"""The words that turn a switch setting on or off (any case), in place of its value."""


@dataclass(frozen=True)
class OptionSpec:
    """One setting. ``field`` is the Settings field; the spellings derive from it.

    ``path`` marks a setting that carries a file system path: the prefix before the path
    in the value (``""``: the whole value is a path; ``"jsonl:"``: a path follows it).
    ``former`` lists names the setting had before: each one's CLI, ini and environment
    spellings still set it, and a run that uses one is warned to use the current spelling.
    ``switch`` marks a setting that is also an on/off switch: ``--r2r-NAME`` alone, or one
    of :data:`SWITCH_ON` / :data:`SWITCH_OFF` in the environment or ini, instead of a value.
    ``repeatable`` marks a list setting: its CLI option may be given several times (the values
    joined by commas), and a path it carries is made absolute in each comma-separated value.
    """

    field: str
    help: str
    metavar: str = "VALUE"
    default_text: str = ""
    flag: bool = False
    path: str | None = None
    former: tuple[str, ...] = ()
    switch: bool = False
    repeatable: bool = False

    @property
    def cli(self) -> str:
        return spelling("cli", self.field)

    @property
    def ini(self) -> str:
        return spelling("ini", self.field)

    @property
    def env(self) -> str:
        return spelling("env", self.field)

    @property
    def names(self) -> tuple[str, ...]:
        """The current name first, then the former ones."""
        return (self.field, *self.former)


OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("model", "Model to benchmark: a LiteLLM model string, r2r/reference, "
               "r2r/degraded:P or r2r/samples:PATH; several (repeated or comma-separated) answer "
               "the same items and are ranked", "MODEL", "r2r/reference", path="r2r/samples:",
               repeatable=True),
    OptionSpec("suite", "Suite to run: dynamic, humaneval or jsonl:PATH", "SUITE", "dynamic",
               path="jsonl:"),
    OptionSpec("seed", "Run seed; the same seed plans the same items", "INT", "random"),
    OptionSpec("sample", "Run a deterministic subset of N tasks (drawn from the seed)", "N", "all"),
    OptionSpec("json", "Write the results JSON here", "PATH", ".req2rank/runs/RUN_ID/results.json",
               path=""),
    OptionSpec("html", "Write a self-contained HTML report; alone: next to the results JSON",
               "PATH", "off; alone: report.html in the run directory", path="", switch=True),
    OptionSpec("db", "SQLite store of runs and items", "PATH", ".req2rank/req2rank.db", path=""),
    OptionSpec("dir", "Directory for run outputs (results, Q&A logs, store)", "PATH", ".req2rank",
               path=""),
    OptionSpec("api_base", "Base URL of an OpenAI-compatible gateway or local server", "URL", "none"),
    OptionSpec("concurrency", "Model calls in flight per worker process, across its items", "N",
               "8"),
    OptionSpec("timeout", "Timeout of one model API call, in seconds", "SECONDS", "120"),
    OptionSpec("preflight", "Before the first item, call every model of the run once with a "
               "tiny request and stop (exit 4) when one cannot answer: on or off", "on|off",
               "on"),
    OptionSpec("max_tokens", "Output token budget of the target model per task", "N", "2048"),
    OptionSpec("temperature", "Sampling temperature of the target model", "FLOAT", "0"),
    OptionSpec("reasoning_effort", "Reasoning effort of the target model: none, minimal, low, "
               "medium, high, xhigh or max, for a model that takes one", "LEVEL",
               "not sent: the model's own"),
    OptionSpec("samples_per_task",
               "Ask the model N times per task (one item per sample) and report pass@k",
               "N", "1; a r2r/samples file: its completions per task"),
    OptionSpec("sandbox", "Sandbox backend that runs the generated code", "NAME", "process"),
    OptionSpec("sandbox_timeout_ms", "Most time one sandbox test may take (budgets follow the "
               "reference's time below it), in milliseconds",
               "MS", "5000"),
    OptionSpec("rounds", "Requirements drawn by the dynamic suite", "N", "10"),
    OptionSpec("complexity", "Restrict the dynamic draw to these complexities (C1-C4)",
               "C1,C2,...", "all"),
    OptionSpec("skills", "Restrict the dynamic draw to these skills", "SKILL,...", "all"),
    OptionSpec("domains", "Restrict the dynamic draw to these domains", "DOMAIN,...", "all"),
    OptionSpec("templates", "Directory of requirement templates for the dynamic suite", "DIR",
               "the library shipped in the package", path="", former=("seeds",)),
    OptionSpec("generator", "Model that elaborates each drawn requirement (three-stage pipeline)",
               "MODEL", "none: offline template variants"),
    OptionSpec("judges", "Judge panel: r2r/static and/or LiteLLM model strings, or none",
               "MODEL,...", "r2r/static for the dynamic suite, none for static suites"),
    OptionSpec("exclude_self_judging", "Leave out judges of the target model's family",
               default_text="off: they judge and are flagged", flag=True),
    OptionSpec("execution_weight",
               "Share of the hidden-test pass ratio in functionality and logic (0-1)",
               "FLOAT", "0.7"),
    OptionSpec("weights", "Dimension weights in percent, e.g. functionality=30,quality=25,...",
               "DIM=PCT,...", "functionality=30,quality=25,logic=25,security=10,engineering=10"),
    OptionSpec("fail_under", "Fail the session (exit code 6) when the score is below SCORE",
               "SCORE", "none"),
    OptionSpec("gate_on", "What --r2r-fail-under compares: score or ci-low", "WHAT", "score"),
    OptionSpec("baseline", "Results JSON of an earlier run: rerun its tasks (suite, sample, seed "
               "and the other plan settings, unless given) and fail on a regression",
               "PATH", "none", path=""),
    OptionSpec("max_drop", "Largest tolerated drop against --r2r-baseline, in score points",
               "POINTS", "0"),
    OptionSpec("nversion", "N-version experiment: N versions of each task (2-20) as items, "
               "faults injected and voted on", "N", "off"),
    OptionSpec("faults", "Fault families of an N-version experiment: code (Pat-CL0-4), "
               "algorithm (Pat-AL0-4)", "FAMILY,...", "code,algorithm"),
    OptionSpec("sdp_judge", "LLM that judges each pair of an N-version task's versions (same "
               "or different approach) for SDP, or none", "MODEL",
               "the first LLM of --r2r-judges; without one SDP is not measured"),
    OptionSpec("embedding_model", "Embedding model (a LiteLLM model string) for MBCS, the mean "
               "pairwise cosine similarity of an N-version task's versions", "MODEL",
               "none: MBCS is not measured"),
    OptionSpec("embedding_api_base", "Base URL of the embedding model's server", "URL", "none"),
    OptionSpec("nv_method", "How a remote model's N versions are made: pipeline (state machine "
               "with HILE, IRQN and repair) or plain (one prompt per version)", "METHOD",
               "pipeline"),
    OptionSpec("nv_retries", "Generation pipeline: retries of a prompt whose answer fails its "
               "check, then the error end", "N", "3"),
    OptionSpec("nv_rollbacks", "Generation pipeline: rollbacks to an earlier state per task",
               "N", "2"),
    OptionSpec("nv_repairs", "Generation pipeline: test-driven repair iterations (K) of a "
               "failing version", "K", "3"),
    OptionSpec("nv_thoughts", "HILE: distinct algorithmic ideas per task", "N", "N (versions)"),
    OptionSpec("nv_solutions", "HILE: plans per idea", "N", "2"),
    OptionSpec("nv_implementations", "HILE: programs per plan", "N", "1"),
    OptionSpec("nv_theta_diff", "IRQN: similarity below which an output is retained", "FLOAT",
               "0.3"),
    OptionSpec("nv_theta_ident", "IRQN: similarity above which an output is negated", "FLOAT",
               "0.7"),
    OptionSpec("nv_p_qn1", "IRQN: probability an output is judged (else accepted as it is)",
               "FLOAT", "0.7"),
    OptionSpec("nv_p_qn2", "IRQN: probability a retained output is negated anyway", "FLOAT",
               "0.3"),
    OptionSpec("nv_irqn_iterations", "IRQN: iterations (J)", "J", "5"),
    OptionSpec("resume", "Resume an interrupted run: keep its finished items, run the rest "
               "(and those lost to infrastructure)", "RUN_ID", "none"),
    OptionSpec("qa_samples", "Draw N items per dataset, stratified by final status, into "
               "qa_samples.jsonl and the reports", "N", "0: none"),
    OptionSpec("wandb", "Log the run to this Weights & Biases project (needs the wandb extra)",
               "[ENTITY/]PROJECT", "off"),
)


REFERENCE_COMMAND = "python -m pytest_req2rank.options > docs/options.md"
"""The command that writes the options reference (docs/options.md) from :data:`OPTIONS`."""


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _usage(spec: OptionSpec) -> str:
    if spec.flag:
        return f"`{spec.cli}`"
    if spec.switch:
        return f"`{spec.cli}[={spec.metavar}]`"
    return f"`{spec.cli}={spec.metavar}`"


def reference_markdown() -> str:
    """The options reference as Markdown: one row per entry of :data:`OPTIONS`."""
    lines = [
        "# Options reference",
        "",
        (f"<!-- Generated from OPTIONS in pytest_req2rank/options.py by `{REFERENCE_COMMAND}`;"
         " do not edit by hand. -->"),
        "",
        ("Every option is a command-line option, an ini key and an environment variable;"
         " precedence is command line > environment > ini > default. `pytest --help` lists"
         " them under \"req2rank\". How values, paths and errors are read, and the two hub"
         " options (`--r2r-submit`, `--r2r-hub-token`): [configuration.md](configuration.md)."),
        "",
        "| option (ini key, environment variable) | default | meaning |",
        "|---|---|---|",
    ]
    for spec in OPTIONS:
        names = f"{_cell(_usage(spec))} (`{spec.ini}`, `{spec.env}`)"
        meaning = spec.help + "."
        if spec.switch:
            meaning += (f" A switch: the option alone, or {'/'.join(SWITCH_ON)} (any case) in"
                        f" the environment or ini, turns it on; {'/'.join(SWITCH_OFF)} turn it off.")
        for former in spec.former:
            meaning += (f" Deprecated spellings, still read with a warning: "
                        f"`{spelling('cli', former)}`, `{spelling('ini', former)}`,"
                        f" `{spelling('env', former)}`.")
        lines.append(f"| {names} | {_cell(spec.default_text)} | {_cell(meaning)} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(reference_markdown(), end="")
