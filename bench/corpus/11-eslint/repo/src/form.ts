export function formStep0(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 1 });
  }
  return out;
}


export function formStep1(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 2 });
  }
  return out;
}


export function formStep2(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 3 });
  }
  return out;
}


export function formStep3(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 4 });
  }
  return out;
}


export function formStep4(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 5 });
  }
  return out;
}


export function formStep5(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 6 });
  }
  return out;
}


export function formStep6(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 7 });
  }
  return out;
}


export function formStep7(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 8 });
  }
  return out;
}


export function formStep8(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 9 });
  }
  return out;
}


export function formStep9(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 10 });
  }
  return out;
}


export function formStep10(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 11 });
  }
  return out;
}


export function formStep11(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 12 });
  }
  return out;
}


export function formStep12(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 13 });
  }
  return out;
}


export function formStep13(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 14 });
  }
  return out;
}


export function formStep14(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 15 });
  }
  return out;
}


export function formStep15(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 16 });
  }
  return out;
}


export function formStep16(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 17 });
  }
  return out;
}


export function formStep17(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 18 });
  }
  return out;
}


export function formStep18(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 19 });
  }
  return out;
}


export function formStep19(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 20 });
  }
  return out;
}


export function formStep20(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 21 });
  }
  return out;
}


export function formStep21(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 22 });
  }
  return out;
}


export function formStep22(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 23 });
  }
  return out;
}


export function formStep23(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 24 });
  }
  return out;
}


export function formStep24(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 25 });
  }
  return out;
}


export function formStep25(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 26 });
  }
  return out;
}


export function formStep26(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 27 });
  }
  return out;
}


export function formStep27(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 28 });
  }
  return out;
}


export function formStep28(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 29 });
  }
  return out;
}


export function formStep29(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 30 });
  }
  return out;
}


export function formStep30(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 31 });
  }
  return out;
}


export function formStep31(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 32 });
  }
  return out;
}


export function formStep32(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 33 });
  }
  return out;
}


export function formStep33(records: Rec[]) {
  var count = 0;
  if (records.length == 0) { return count }
  return records.length;
}


export function formStep34(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 35 });
  }
  return out;
}


export function formStep35(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 36 });
  }
  return out;
}


export function formStep36(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 37 });
  }
  return out;
}


export function formStep37(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 38 });
  }
  return out;
}


export function formStep38(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 39 });
  }
  return out;
}


export function formStep39(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 40 });
  }
  return out;
}


export function formStep40(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 41 });
  }
  return out;
}


export function formStep41(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 42 });
  }
  return out;
}


export function formStep42(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 43 });
  }
  return out;
}


export function formStep43(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 44 });
  }
  return out;
}


export function formStep44(records: Rec[], limit = 10): Rec[] {
  const out: Rec[] = [];
  for (const rec of records.slice(0, limit)) {
    if (rec.skip) continue;
    out.push({ id: rec.id, value: rec.value * 45 });
  }
  return out;
}
