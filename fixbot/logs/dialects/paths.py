"""What a source file's name looks like in any dialect's `path:line` (its extensions)."""

SOURCE_EXTENSIONS = (
    "py|pyi|pyx|js|jsx|mjs|cjs|ts|tsx|mts|cts|vue|svelte|go|rs|c|h|cc|cpp|cxx|hpp|hh|m|mm|java|kt"
    "|kts|scala|swift|rb|php|cs|fs|ex|exs|erl|hs|ml|lua|pl|r|jl|dart|zig|sh|bash|sql|proto|tf"
    "|toml|yaml|yml|json|cfg|ini|md|rst|txt|html|css|scss"
)
PATH_LINE = (
    rf"(?<![\w./\\~+-])(?P<path>[\w./\\~+-]*[\w-]\.(?:{SOURCE_EXTENSIONS}))"
    r":(?P<line>\d+)(?::(?P<col>\d+))?\b"
)  # `src/x.py:3`, `src/x.c:3:5`: compilers, linters, most runners
