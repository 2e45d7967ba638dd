"""PHP: Composer projects, tested by PHPUnit (https://getcomposer.org/doc/01-basic-usage.md,
https://docs.phpunit.de/en/11.5/organizing-tests.html)."""

from __future__ import annotations

from fixbot.ecosystems.base import Commands, Dependencies, Ecosystem, Tests

ECOSYSTEM = Ecosystem(
    name="php",
    markers=("composer.json",),
    tests=Tests(names=r".*Test\.php", sources=(".php",), folders=frozenset({"tests"})),
    dependencies=Dependencies(
        manifests=("composer.json",), locks=("composer.lock",), declared_in=("composer.json",)
    ),
    commands=Commands(
        setup=(("composer.json", "composer install"),),
        check=(("phpunit.xml", "vendor/bin/phpunit"), ("phpunit.xml.dist", "vendor/bin/phpunit")),
    ),
    runner_config=(r"phpunit\.xml(?:\.dist)?",),
)
