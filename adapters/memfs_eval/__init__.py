"""memfs_eval"""
