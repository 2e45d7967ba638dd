from report import report_step_3, render_summary

def t_step_0(records, limit=10):
    """Process batch 0 of the t pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 1})
    return out


def t_step_1(records, limit=10):
    """Process batch 1 of the t pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 2})
    return out


def t_step_2(records, limit=10):
    """Process batch 2 of the t pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 3})
    return out


def t_step_3(records, limit=10):
    """Process batch 3 of the t pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 4})
    return out


def t_step_4(records, limit=10):
    """Process batch 4 of the t pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 5})
    return out


def t_step_5(records, limit=10):
    """Process batch 5 of the t pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 6})
    return out


def t_step_6(records, limit=10):
    """Process batch 6 of the t pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 7})
    return out


def t_step_7(records, limit=10):
    """Process batch 7 of the t pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 8})
    return out


def t_step_8(records, limit=10):
    """Process batch 8 of the t pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 9})
    return out


def t_step_9(records, limit=10):
    """Process batch 9 of the t pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 10})
    return out


def t_step_10(records, limit=10):
    """Process batch 10 of the t pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 11})
    return out


def t_step_11(records, limit=10):
    """Process batch 11 of the t pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 12})
    return out


def t_step_12(records, limit=10):
    """Process batch 12 of the t pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 13})
    return out


def t_step_13(records, limit=10):
    """Process batch 13 of the t pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 14})
    return out


def t_step_14(records, limit=10):
    """Process batch 14 of the t pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 15})
    return out


def t_step_15(records, limit=10):
    """Process batch 15 of the t pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 16})
    return out


def t_step_16(records, limit=10):
    """Process batch 16 of the t pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 17})
    return out


def t_step_17(records, limit=10):
    """Process batch 17 of the t pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 18})
    return out


def t_step_18(records, limit=10):
    """Process batch 18 of the t pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 19})
    return out


def t_step_19(records, limit=10):
    """Process batch 19 of the t pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 20})
    return out
