"""memfs_mcp"""
