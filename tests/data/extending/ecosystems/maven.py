"""Java with Maven, as a user would add it: the whole change is this module
(tests/ecosystems/test_registry.py drops it into `fixbot/ecosystems/`). Surefire's default
includes: https://maven.apache.org/surefire/maven-surefire-plugin/test-mojo.html#includes"""

from __future__ import annotations

from fixbot.ecosystems.base import Commands, Dependencies, Ecosystem, Tests

ECOSYSTEM = Ecosystem(
    name="maven",
    markers=("pom.xml",),
    tests=Tests(
        names=r"Test.*\.java|.*Tests?\.java|.*TestCase\.java",
        sources=(".java",),
        folders=frozenset({"test"}),
        skips=(r"@(?:Disabled|Ignore)\b",),
    ),
    dependencies=Dependencies(manifests=("pom.xml",), generated=frozenset({"target"})),
    commands=Commands(
        setup=(("pom.xml", "mvn -B -q dependency:go-offline"),), check=(("pom.xml", "mvn -B test"),)
    ),
)
