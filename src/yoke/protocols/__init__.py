"""Protocol front-ends: the Agent Client Protocol (ACP) server and its client-side seams."""
