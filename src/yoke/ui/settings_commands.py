"""`/config`, `/hooks`, `/output-style` and `/statusline`: the settings a user looks at and changes from the
prompt.

Changes are written where Claude Code writes them: the project's `.claude/settings.local.json` for the model,
the default permission mode and the output style, the user's `~/.claude/settings.json` for the
notification channel (a per-person choice); each write keeps every other key and is atomic.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from rich.text import Text

from yoke.config.settings_write import SETTABLE_MODES
from yoke.jsonsafe import dict_at
from yoke.ui.commands import command, emit_table
from yoke.ui.settings_file import local_settings_file, merged_settings, user_settings_file, write_setting

NOTIFY_CHANNELS = ("auto", "terminal_bell", "iterm2", "iterm2_with_bell", "kitty", "ghostty",
                   "notifications_disabled")  # fmt: skip
CONFIG_KEYS = {
    "model": "model",
    "defaultmode": "defaultMode",
    "permissions.defaultmode": "defaultMode",
    "outputstyle": "outputStyle",
    "output-style": "outputStyle",
    "preferrednotifchannel": "preferredNotifChannel",
    "notifications": "preferredNotifChannel",
}
STATUSLINE_PROMPT = """\
Set up my status line for Yoke. {wish}

Yoke's status line is a command it runs after each turn and each mode change: the command gets the session \
as JSON on stdin (fields: session_id, transcript_path, cwd, model.id, model.display_name, \
workspace.current_dir, workspace.project_dir, version, output_style.name, cost.total_cost_usd, \
context_window.total_input_tokens, context_window.total_output_tokens, permission_mode) and the first line \
it prints is shown dimmed under the prompt. It must finish well within 5 seconds.

1. Write the command as an executable script, ~/.claude/statusline.sh (read the JSON with jq when it is \
installed, else with python3; print colours with printf and ANSI codes).
2. Set the `statusLine` setting in ~/.claude/settings.json to \
{{"type": "command", "command": "~/.claude/statusline.sh"}}, keeping every other setting in that file \
(create the file if it does not exist).
3. Run the script once with a sample JSON input and show me the line it prints."""
PS1_WISH = (
    "Base it on my shell prompt: the PS1 set in ~/.zshrc, ~/.bashrc, ~/.bash_profile or ~/.profile (the first "
    "that sets one), turning its escapes into commands and leaving out a trailing $ or >. If none sets a "
    "PS1, ask me what the line should show."
)


# ---- /config ------------------------------------------------------------------------------------------


@command("config", "Show the settings; change one: /config set KEY VALUE")
async def _config(ui: Any, args: str) -> None:
    words = args.split(None, 2)
    if words[:1] == ["set"]:
        if len(words) < 3:
            ui.say("  usage: /config set KEY VALUE (model, defaultMode, outputStyle, preferredNotifChannel)",
                   "yellow")  # fmt: skip
            return
        await set_config(ui, words[1], words[2].strip())
        return
    if words:
        ui.say("  usage: /config, or /config set KEY VALUE", "yellow")
        return
    settings = merged_settings(ui)
    emit_table(ui, config_rows(ui, settings))
    labels = ["Model", "Default permission mode", "Output style", "Notifications", "Done"]
    header = ui.painter.line("Change a setting:", "bold")
    index = await ui.choose(header, labels, default=len(labels) - 1)
    if index is None or index == len(labels) - 1:
        return
    key = ("model", "defaultMode", "outputStyle", "preferredNotifChannel")[index]
    values = _choices(ui, key)
    picked = await ui.choose(ui.painter.line(f"{labels[index]}:", "bold"), values)
    if picked is not None:
        await set_config(ui, key, values[picked])


def config_rows(ui: Any, settings: dict[str, Any]) -> list[tuple[str, str]]:
    session = ui.session
    perms = dict_at(settings, "permissions")
    status = settings.get("statusLine")
    status_text = status.get("command", "") if isinstance(status, dict) else ""
    return [
        ("model", session.model),
        ("Permission mode (now)", session.permission_mode),
        ("defaultMode", str(perms.get("defaultMode") or "default")),
        ("outputStyle", str(settings.get("outputStyle") or "default")),
        ("preferredNotifChannel", ui.notifier.channel if ui.notifier is not None else "auto"),
        ("statusLine", status_text or "none (/statusline sets one up)"),
        ("autoCompactEnabled", "false" if settings.get("autoCompactEnabled") is False else "true"),
        ("Colours", "off (NO_COLOR)" if ui.painter.no_color else "on"),
        ("Settings file", str(local_settings_file(ui.cwd))),
    ]


def _choices(ui: Any, key: str) -> list[str]:
    if key == "model":
        return ["sonnet", "opus", "haiku"]
    if key == "defaultMode":
        return list(SETTABLE_MODES)
    if key == "outputStyle":
        return list(available_styles(ui))
    return list(NOTIFY_CHANNELS)


async def set_config(ui: Any, key: str, value: str) -> None:
    """Apply one setting to the session where it can apply now, and save it."""
    name = CONFIG_KEYS.get(key.lower())
    if name is None:
        ui.say(f"  Unknown setting {key!r}: use model, defaultMode, outputStyle or preferredNotifChannel",
               "yellow")  # fmt: skip
        return
    try:
        if name == "model":
            ui.session.set_model(value)  # an alias is saved as typed, so it follows the alias later
            path = _save(ui, local_settings_file(ui.cwd), ("model",), value)
            ui.say(f"  Model set to {ui.session.model} (saved in {path})")
        elif name == "defaultMode":
            await _set_default_mode(ui, value)
        elif name == "outputStyle":
            await set_output_style(ui, value)
        else:
            if value not in NOTIFY_CHANNELS:
                raise ValueError(f"preferredNotifChannel must be one of {', '.join(NOTIFY_CHANNELS)}")
            path = _save(ui, user_settings_file(ui.env), ("preferredNotifChannel",), value)
            ui.notifier.channel = value
            ui.say(f"  Notifications: {value} (saved in {path})")
    except (ValueError, OSError) as exc:
        ui.say(f"  {exc}", "red")
    ui.settings = merged_settings(ui)


def _save(ui: Any, path: Path, keys: tuple[str, ...], value: Any) -> Path:
    write_setting(path, keys, value)
    return path


async def _set_default_mode(ui: Any, value: str) -> None:
    from yoke.session.views import permission_mode_name

    mode = permission_mode_name(value)
    if mode not in SETTABLE_MODES:
        raise ValueError(
            f"defaultMode must be one of {', '.join(SETTABLE_MODES)} "
            "(auto and bypassPermissions are chosen with --permission-mode)"
        )
    path = _save(ui, local_settings_file(ui.cwd), ("permissions", "defaultMode"), mode)
    ui.session.set_permission_mode(mode)
    ui.refresh_status()
    ui.say(f"  Default permission mode set to {mode} (saved in {path}); this session is in it now")


# ---- /output-style ------------------------------------------------------------------------------------


def available_styles(ui: Any) -> dict[str, Any]:
    from yoke.session.views import output_styles

    return output_styles(ui.session, Path(ui.cwd), ui.env)


@command("output-style", "Show or choose the output style [name]")
async def _output_style(ui: Any, args: str) -> None:
    if args:
        await set_output_style(ui, args.strip())
        return
    styles = available_styles(ui)
    current = str(merged_settings(ui).get("outputStyle") or "default")
    names = list(styles)
    shown = [
        f"{name}{' ✔' if name.lower() == current.lower() else ''} — {styles[name].description} "
        f"({styles[name].source})"
        for name in names
    ]
    header = ui.painter.line(f"Output style: {current}. Choose one:", "bold")
    index = await ui.choose(header, shown, default=next(
        (i for i, n in enumerate(names) if n.lower() == current.lower()), 0))  # fmt: skip
    if index is not None:
        await set_output_style(ui, names[index])


async def set_output_style(ui: Any, wanted: str) -> None:
    styles = available_styles(ui)
    style = styles.get(wanted) or next((s for n, s in styles.items() if n.lower() == wanted.lower()), None)
    if style is None:
        ui.say(f"  No output style {wanted!r} (available: {', '.join(styles)})", "red")
        return
    path = local_settings_file(ui.cwd)
    try:
        write_setting(path, ("outputStyle",), style.name)
    except (ValueError, OSError) as exc:
        ui.say(f"  {exc}", "red")
        return
    ui.settings = merged_settings(ui)
    ui.say(f"  Output style set to {style.name} (saved in {path}); it applies from the next conversation "
           "(/clear)")  # fmt: skip


# ---- /hooks -------------------------------------------------------------------------------------------


@command("hooks", "The hooks this session runs, by event")
async def _hooks(ui: Any, args: str) -> None:
    from yoke.ui.commands import describe

    rows = await describe(ui, "hooks")
    if rows is None:
        return
    if not rows:
        ui.say("  No hooks are configured (settings files' `hooks`, plugins, skills).", "dim")
        return
    text = Text()
    for event in dict.fromkeys(r["event"] for r in rows):
        text.append(f"{event}\n", style="bold")
        for row in (r for r in rows if r["event"] == event):
            text.append(f"  [{row['matcher'] or '*'}] {row['type']}: {row['target']}\n")
            text.append(f"      from {_source(row)}\n", style="dim")
    ui.emit(ui.painter.ansi(text))


def _source(row: dict[str, Any]) -> str:
    source, scope = str(row.get("source") or ""), str(row.get("scope") or "")
    if scope in ("plugin", "skill", "agent", "sdk"):
        return source
    home = os.path.expanduser("~")
    shown = "~" + source[len(home) :] if home and source.startswith(home + os.sep) else source
    return f"{shown} ({scope} settings)" if scope else shown


# ---- /statusline --------------------------------------------------------------------------------------


@command("statusline", "Ask Yoke to set up the status line [what it should show]")
async def _statusline(ui: Any, args: str) -> None:
    await ui.turn(STATUSLINE_PROMPT.format(wish=args.strip() or PS1_WISH), echo=False)
    ui.reload_statusline()
