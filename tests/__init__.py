"""The test suite: rules, storage, and end-to-end through the fake Discord."""
