type Rec = { id: number; value: number; skip?: boolean };

export function apiStep0(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 1 });
  }
  return out;
}


export function apiStep1(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 2 });
  }
  return out;
}


export function apiStep2(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 3 });
  }
  return out;
}


export function apiStep3(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 4 });
  }
  return out;
}


export function apiStep4(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 5 });
  }
  return out;
}


export function apiStep5(records: Rec[]): string {
  return records.length;
}


export function apiStep6(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 7 });
  }
  return out;
}


export function apiStep7(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 8 });
  }
  return out;
}


export function apiStep8(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 9 });
  }
  return out;
}


export function apiStep9(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 10 });
  }
  return out;
}


export function apiStep10(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 11 });
  }
  return out;
}


export function apiStep11(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 12 });
  }
  return out;
}


export function apiStep12(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 13 });
  }
  return out;
}


export function apiStep13(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 14 });
  }
  return out;
}


export function apiStep14(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 15 });
  }
  return out;
}


export function apiStep15(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 16 });
  }
  return out;
}


export function apiStep16(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 17 });
  }
  return out;
}


export function apiStep17(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 18 });
  }
  return out;
}


export function apiStep18(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 19 });
  }
  return out;
}


export function apiStep19(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 20 });
  }
  return out;
}


export function apiStep20(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 21 });
  }
  return out;
}


export function apiStep21(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 22 });
  }
  return out;
}


export function apiStep22(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 23 });
  }
  return out;
}


export function apiStep23(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 24 });
  }
  return out;
}


export function apiStep24(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 25 });
  }
  return out;
}


export function apiStep25(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 26 });
  }
  return out;
}


export function apiStep26(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 27 });
  }
  return out;
}


export function apiStep27(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 28 });
  }
  return out;
}


export function apiStep28(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 29 });
  }
  return out;
}


export function apiStep29(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 30 });
  }
  return out;
}


export function apiStep30(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 31 });
  }
  return out;
}


export function apiStep31(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 32 });
  }
  return out;
}


export function apiStep32(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 33 });
  }
  return out;
}


export function apiStep33(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 34 });
  }
  return out;
}


export function apiStep34(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 35 });
  }
  return out;
}


export function apiStep35(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 36 });
  }
  return out;
}


export function apiStep36(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 37 });
  }
  return out;
}


export function apiStep37(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 38 });
  }
  return out;
}


export function apiStep38(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 39 });
  }
  return out;
}


export function apiStep39(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 40 });
  }
  return out;
}
