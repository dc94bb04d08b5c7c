"""MCP: the client (configuration, connections, tools, tool search, OAuth) and `yoke mcp serve`.

Nothing here is imported at start-up; `yoke.mcp.attach` loads the `mcp` package only when a server is
configured."""
