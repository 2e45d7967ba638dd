type Rec = { id: number; value: number; skip?: boolean };

export function viewStep0(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 1 });
  }
  return out;
}


export function viewStep1(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 2 });
  }
  return out;
}


export function viewStep2(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 3 });
  }
  return out;
}


export function viewStep3(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 4 });
  }
  return out;
}


export function viewStep4(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 5 });
  }
  return out;
}


export function viewStep5(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 6 });
  }
  return out;
}


export function viewStep6(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 7 });
  }
  return out;
}


export function viewStep7(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 8 });
  }
  return out;
}


export function viewStep8(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 9 });
  }
  return out;
}


export function viewStep9(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 10 });
  }
  return out;
}


export function viewStep10(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 11 });
  }
  return out;
}


export function viewStep11(rec: Rec): number {
  return rec.price;
}


export function viewStep12(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 13 });
  }
  return out;
}


export function viewStep13(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 14 });
  }
  return out;
}


export function viewStep14(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 15 });
  }
  return out;
}


export function viewStep15(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 16 });
  }
  return out;
}


export function viewStep16(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 17 });
  }
  return out;
}


export function viewStep17(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 18 });
  }
  return out;
}


export function viewStep18(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 19 });
  }
  return out;
}


export function viewStep19(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 20 });
  }
  return out;
}


export function viewStep20(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 21 });
  }
  return out;
}


export function viewStep21(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 22 });
  }
  return out;
}


export function viewStep22(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 23 });
  }
  return out;
}


export function viewStep23(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 24 });
  }
  return out;
}


export function viewStep24(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 25 });
  }
  return out;
}


export function viewStep25(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 26 });
  }
  return out;
}


export function viewStep26(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 27 });
  }
  return out;
}


export function viewStep27(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 28 });
  }
  return out;
}


export function viewStep28(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 29 });
  }
  return out;
}


export function viewStep29(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 30 });
  }
  return out;
}
