"""Devices: executables that run compiled programs, and their caches."""
