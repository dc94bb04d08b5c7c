"""Helpers behind WebFetch and WebSearch: fetching with redirect rules, HTML to Markdown, search back-ends."""
