"""settings_toml.py -- read and check src/common/settings.toml, the one table
of libductile's DUCTILE_* settings (see its head for the keys), and the text
forms the generators share: tools/gen-settings.py (the C table, the docs'
tables), tools/gen-man.py (libductile(7)) and tests/settings-all.py (the
cases: every documented value, and bad ones)."""
import os
import re
import sys
import tomllib

TABLE_FILES = {  # docs table id -> file (relative to the source tree)
    "readme": "README.md",
    "report": "docs/report.md",
    "malleability": "docs/malleability.md",
    "rma": "docs/rma.md",
    "controller": "docs/controller.md",
    "io": "docs/io.md",
}
TYPES = ("bool", "int", "enum", "string", "address")
COMMON_KEYS = {"name", "type", "default", "default_doc", "field", "tables", "meaning", "invalid", "checked_by"}
TYPE_KEYS = {
    "bool": set(),
    "int": {"min", "max"},
    "enum": {"values"},
    "string": {"values_doc", "none_word", "valid", "any_text"},
    "address": {"values_doc", "valid"},
}
BOOL_WORDS = ["1", "0", "yes", "no", "on", "off", "true", "false"]


class SettingsError(Exception):
    pass


def toml_path(top):
    return os.path.join(top, "src", "common", "settings.toml")


def load(top):
    """The settings, in order, each a dict; raises SettingsError naming the
    entry and the key when the file is not as its head describes."""
    path = toml_path(top)
    with open(path, "rb") as f:
        try:
            data = tomllib.load(f)
        except tomllib.TOMLDecodeError as e:
            raise SettingsError("%s: %s" % (path, e))
    if set(data) != {"setting"}:
        raise SettingsError("%s: only [[setting]] blocks are allowed, found %s" % (path, sorted(set(data) - {"setting"})))
    seen = set()
    out = []
    for i, s in enumerate(data["setting"], 1):
        where = "%s: setting %d (%s)" % (path, i, s.get("name", "no name"))
        check(s, where)
        if s["name"] in seen:
            raise SettingsError("%s: defined twice" % where)
        seen.add(s["name"])
        out.append(s)
    return out


def check(s, where):
    for k in ("name", "type", "default", "tables", "meaning"):
        if k not in s:
            raise SettingsError("%s: missing key '%s'" % (where, k))
    t = s["type"]
    if t not in TYPES:
        raise SettingsError("%s: type '%s' is not one of %s" % (where, t, ", ".join(TYPES)))
    extra = set(s) - COMMON_KEYS - TYPE_KEYS[t]
    if extra:
        raise SettingsError("%s: keys %s do not apply to type %s" % (where, sorted(extra), t))
    if not re.fullmatch(r"DUCTILE_[A-Z][A-Z0-9_]*", s["name"]):
        raise SettingsError("%s: the name must be DUCTILE_ and capitals" % where)
    if "field" in s and not re.fullmatch(r"[a-z_][a-z0-9_]*", s["field"]):
        raise SettingsError("%s: field '%s' is not a C member name" % (where, s["field"]))
    if not s["tables"] or any(x not in TABLE_FILES for x in s["tables"]):
        raise SettingsError("%s: tables must name some of %s" % (where, ", ".join(TABLE_FILES)))
    for k in ("default", "default_doc", "meaning", "values_doc", "none_word", "any_text", "checked_by"):
        if k in s and not isinstance(s[k], str):
            raise SettingsError("%s: '%s' must be a string" % (where, k))
    if t == "int":
        if not (isinstance(s.get("min"), int) and isinstance(s.get("max"), int) and s["min"] <= s["max"]):
            raise SettingsError("%s: an int needs integers min <= max" % where)
        if not re.fullmatch(r"-?[0-9]+", s["default"]) or not s["min"] <= int(s["default"]) <= s["max"]:
            raise SettingsError("%s: default '%s' is not in %d..%d" % (where, s["default"], s["min"], s["max"]))
    elif t == "bool":
        if s["default"] not in ("0", "1"):
            raise SettingsError("%s: a bool's default is 0 or 1" % where)
    elif t == "enum":
        v = s.get("values")
        if not v or not all(isinstance(x, str) and re.fullmatch(r"[a-z0-9][a-z0-9-]*", x) for x in v):
            raise SettingsError("%s: an enum needs values (lower-case words)" % where)
        if s["default"] not in v:
            raise SettingsError("%s: default '%s' is not among the values" % (where, s["default"]))
    else:
        if not s.get("values_doc"):
            raise SettingsError("%s: a %s needs values_doc" % (where, t))
        if not s.get("valid"):
            raise SettingsError("%s: a %s needs valid (values the test sets)" % (where, t))
        if not s.get("invalid") and not s.get("any_text"):
            raise SettingsError("%s: give invalid values, or any_text saying why any text is accepted" % where)
        if t == "address" and not s.get("invalid"):
            raise SettingsError("%s: an address needs invalid values" % where)


def plain(md):
    """Markdown-lite (backticks) to plain text, for --help and man pages."""
    return md.replace("`", "")


def values_md(s):
    """The docs' "values" column."""
    t = s["type"]
    if t == "bool":
        return "`0` or `1` (also `no`/`yes`, `off`/`on`, `false`/`true`)"
    if t == "int":
        return "`%d` .. `%d`" % (s["min"], s["max"])
    if t == "enum":
        return ", ".join("`%s`" % v for v in s["values"])
    return s["values_doc"]


def default_md(s):
    if s.get("default_doc"):
        return s["default_doc"]
    return "`%s`" % s["default"] if s["default"] != "" else "(none)"


def cases(s):
    """(valid values, invalid values) the test sets: every documented value
    of a bool, int or enum, and derived bad ones; the listed ones of strings."""
    t = s["type"]
    inv = list(s.get("invalid", []))
    if t == "bool":
        return list(BOOL_WORDS), ["maybe", "2"] + inv
    if t == "int":
        lo, hi = s["min"], s["max"]
        valid = sorted({lo, hi, int(s["default"])})
        return [str(v) for v in valid], ["x", str(hi + 1), str(lo - 1), "1.5"] + inv
    if t == "enum":
        return list(s["values"]), ["bogus", s["values"][0].upper()] + inv
    return list(s["valid"]), inv


if __name__ == "__main__":
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        for x in load(top):
            print(x["name"])
    except SettingsError as e:
        sys.exit("settings.toml: %s" % e)
