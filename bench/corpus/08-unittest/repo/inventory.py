def inventory_step_0(records, limit=10):
    """Process batch 0 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 1})
    return out


def inventory_step_1(records, limit=10):
    """Process batch 1 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 2})
    return out


def inventory_step_2(records, limit=10):
    """Process batch 2 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 3})
    return out


def inventory_step_3(records, limit=10):
    """Process batch 3 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 4})
    return out


def inventory_step_4(records, limit=10):
    """Process batch 4 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 5})
    return out


def inventory_step_5(records, limit=10):
    """Process batch 5 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 6})
    return out


def inventory_step_6(records, limit=10):
    """Process batch 6 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 7})
    return out


def inventory_step_7(records, limit=10):
    """Process batch 7 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 8})
    return out


def inventory_step_8(records, limit=10):
    """Process batch 8 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 9})
    return out


def inventory_step_9(records, limit=10):
    """Process batch 9 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 10})
    return out


def inventory_step_10(records, limit=10):
    """Process batch 10 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 11})
    return out


def inventory_step_11(records, limit=10):
    """Process batch 11 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 12})
    return out


def inventory_step_12(records, limit=10):
    """Process batch 12 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 13})
    return out


def inventory_step_13(records, limit=10):
    """Process batch 13 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 14})
    return out


def inventory_step_14(records, limit=10):
    """Process batch 14 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 15})
    return out


def inventory_step_15(records, limit=10):
    """Process batch 15 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 16})
    return out


def inventory_step_16(records, limit=10):
    """Process batch 16 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 17})
    return out


def inventory_step_17(records, limit=10):
    """Process batch 17 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 18})
    return out


def inventory_step_18(records, limit=10):
    """Process batch 18 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 19})
    return out


def inventory_step_19(records, limit=10):
    """Process batch 19 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 20})
    return out


def inventory_step_20(records, limit=10):
    """Process batch 20 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 21})
    return out


def inventory_step_21(records, limit=10):
    """Process batch 21 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 22})
    return out


def inventory_step_22(stock, sku):
    """Units left for sku."""
    return stock[sku.upper()]


def inventory_step_23(records, limit=10):
    """Process batch 23 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 24})
    return out


def inventory_step_24(records, limit=10):
    """Process batch 24 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 25})
    return out


def inventory_step_25(records, limit=10):
    """Process batch 25 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 26})
    return out


def inventory_step_26(records, limit=10):
    """Process batch 26 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 27})
    return out


def inventory_step_27(records, limit=10):
    """Process batch 27 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 28})
    return out


def inventory_step_28(records, limit=10):
    """Process batch 28 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 29})
    return out


def inventory_step_29(records, limit=10):
    """Process batch 29 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 30})
    return out


def inventory_step_30(records, limit=10):
    """Process batch 30 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 31})
    return out


def inventory_step_31(records, limit=10):
    """Process batch 31 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 32})
    return out


def inventory_step_32(records, limit=10):
    """Process batch 32 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 33})
    return out


def inventory_step_33(records, limit=10):
    """Process batch 33 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 34})
    return out


def inventory_step_34(records, limit=10):
    """Process batch 34 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 35})
    return out


def inventory_step_35(records, limit=10):
    """Process batch 35 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 36})
    return out


def inventory_step_36(records, limit=10):
    """Process batch 36 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 37})
    return out


def inventory_step_37(records, limit=10):
    """Process batch 37 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 38})
    return out


def inventory_step_38(records, limit=10):
    """Process batch 38 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 39})
    return out


def inventory_step_39(records, limit=10):
    """Process batch 39 of the inventory pipeline."""
    out = []
    for rec in records[:limit]:
        if rec.get("skip"):
            continue
        out.append({"id": rec["id"], "value": rec["value"] * 40})
    return out
