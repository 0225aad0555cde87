"""memfs_anthropic"""
