"""fixbot's observer inside the test runner: the plugin (`pytest_plugin`, standard library and
pytest only, run in the project's Python), the channel that loads it and reads its stream
(`channel`), and the judgement of what it saw (`judge`)."""
