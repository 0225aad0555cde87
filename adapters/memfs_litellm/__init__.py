"""memfs_litellm"""
