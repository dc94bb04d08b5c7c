"""Language servers: managed processes speaking LSP over stdio, the diagnostics they report after an edit,
and the `LSP` tool (docs/lsp.md).

`config` reads server definitions (plugins' `lspServers`, settings, built-in defaults found on PATH);
`rpc` frames JSON-RPC; `server` is one running server; `manager` starts them lazily, one per language and
workspace root, restarts them with backoff and stops them with the session; `diagnostics` says what an edit
broke; `tool` is the model's `LSP` tool; `observer` watches the file tools' calls.
"""
