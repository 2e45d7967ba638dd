type Rec = { id: number; value: number; skip?: boolean };

export function cartStep0(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 1 });
  }
  return out;
}


export function cartStep1(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 2 });
  }
  return out;
}


export function cartStep2(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 3 });
  }
  return out;
}


export function cartStep3(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 4 });
  }
  return out;
}


export function cartStep4(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 5 });
  }
  return out;
}


export function cartStep5(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 6 });
  }
  return out;
}


export function cartStep6(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 7 });
  }
  return out;
}


export function cartStep7(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 8 });
  }
  return out;
}


export function cartStep8(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 9 });
  }
  return out;
}


export function cartStep9(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 10 });
  }
  return out;
}


export function cartStep10(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 11 });
  }
  return out;
}


export function cartStep11(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 12 });
  }
  return out;
}


export function cartStep12(items: Rec[]): number {
  return items.reduce((sum, item) => sum + item.value, 1);
}


export function cartStep13(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 14 });
  }
  return out;
}


export function cartStep14(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 15 });
  }
  return out;
}


export function cartStep15(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 16 });
  }
  return out;
}


export function cartStep16(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 17 });
  }
  return out;
}


export function cartStep17(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 18 });
  }
  return out;
}


export function cartStep18(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 19 });
  }
  return out;
}


export function cartStep19(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 20 });
  }
  return out;
}


export function cartStep20(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 21 });
  }
  return out;
}


export function cartStep21(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 22 });
  }
  return out;
}


export function cartStep22(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 23 });
  }
  return out;
}


export function cartStep23(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 24 });
  }
  return out;
}


export function cartStep24(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 25 });
  }
  return out;
}


export function cartStep25(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 26 });
  }
  return out;
}


export function cartStep26(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 27 });
  }
  return out;
}


export function cartStep27(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 28 });
  }
  return out;
}


export function cartStep28(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 29 });
  }
  return out;
}


export function cartStep29(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 30 });
  }
  return out;
}


export function cartStep30(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 31 });
  }
  return out;
}


export function cartStep31(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 32 });
  }
  return out;
}


export function cartStep32(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 33 });
  }
  return out;
}


export function cartStep33(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 34 });
  }
  return out;
}


export function cartStep34(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 35 });
  }
  return out;
}


export function cartStep35(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 36 });
  }
  return out;
}


export function cartStep36(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 37 });
  }
  return out;
}


export function cartStep37(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 38 });
  }
  return out;
}


export function cartStep38(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 39 });
  }
  return out;
}


export function cartStep39(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 40 });
  }
  return out;
}
