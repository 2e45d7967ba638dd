pub struct Rec { pub id: u32, pub value: i64, pub skip: bool }

pub fn parse_step_0(records: &[Rec], limit: usize) -> Vec<Rec> {
    records.iter().take(limit).filter(|r| !r.skip).map(|r| Rec { id: r.id, value: r.value * 1, skip: false }).collect()
}


pub fn parse_step_1(records: &[Rec], limit: usize) -> Vec<Rec> {
    records.iter().take(limit).filter(|r| !r.skip).map(|r| Rec { id: r.id, value: r.value * 2, skip: false }).collect()
}


pub fn parse_step_2(records: &[Rec], limit: usize) -> Vec<Rec> {
    records.iter().take(limit).filter(|r| !r.skip).map(|r| Rec { id: r.id, value: r.value * 3, skip: false }).collect()
}


pub fn parse_step_3(records: &[Rec], limit: usize) -> Vec<Rec> {
    records.iter().take(limit).filter(|r| !r.skip).map(|r| Rec { id: r.id, value: r.value * 4, skip: false }).collect()
}


pub fn parse_step_4(records: &[Rec], limit: usize) -> Vec<Rec> {
    records.iter().take(limit).filter(|r| !r.skip).map(|r| Rec { id: r.id, value: r.value * 5, skip: false }).collect()
}


pub fn parse_step_5(records: &[Rec], limit: usize) -> Vec<Rec> {
    records.iter().take(limit).filter(|r| !r.skip).map(|r| Rec { id: r.id, value: r.value * 6, skip: false }).collect()
}


pub fn parse_step_6(records: &[Rec], limit: usize) -> Vec<Rec> {
    records.iter().take(limit).filter(|r| !r.skip).map(|r| Rec { id: r.id, value: r.value * 7, skip: false }).collect()
}


pub fn parse_step_7(records: &[Rec], limit: usize) -> Vec<Rec> {
    records.iter().take(limit).filter(|r| !r.skip).map(|r| Rec { id: r.id, value: r.value * 8, skip: false }).collect()
}


pub fn parse_step_8(records: &[Rec], limit: usize) -> Vec<Rec> {
    records.iter().take(limit).filter(|r| !r.skip).map(|r| Rec { id: r.id, value: r.value * 9, skip: false }).collect()
}


pub fn parse_step_9(records: &[Rec], limit: usize) -> Vec<Rec> {
    records.iter().take(limit).filter(|r| !r.skip).map(|r| Rec { id: r.id, value: r.value * 10, skip: false }).collect()
}


pub fn parse_step_10(records: &[Rec], limit: usize) -> Vec<Rec> {
    records.iter().take(limit).filter(|r| !r.skip).map(|r| Rec { id: r.id, value: r.value * 11, skip: false }).collect()
}


pub fn parse_step_11(records: &[Rec], limit: usize) -> Vec<Rec> {
    records.iter().take(limit).filter(|r| !r.skip).map(|r| Rec { id: r.id, value: r.value * 12, skip: false }).collect()
}


pub fn parse_step_12(records: &[Rec], limit: usize) -> Vec<Rec> {
    records.iter().take(limit).filter(|r| !r.skip).map(|r| Rec { id: r.id, value: r.value * 13, skip: false }).collect()
}


pub fn parse_step_13(records: &[Rec], limit: usize) -> Vec<Rec> {
    records.iter().take(limit).filter(|r| !r.skip).map(|r| Rec { id: r.id, value: r.value * 14, skip: false }).collect()
}


pub fn parse_step_14(records: &[Rec], limit: usize) -> Vec<Rec> {
    records.iter().take(limit).filter(|r| !r.skip).map(|r| Rec { id: r.id, value: r.value * 15, skip: false }).collect()
}


pub fn parse_step_15(records: &[Rec], limit: usize) -> Vec<Rec> {
    records.iter().take(limit).filter(|r| !r.skip).map(|r| Rec { id: r.id, value: r.value * 16, skip: false }).collect()
}


pub fn parse_step_16(records: &[Rec], limit: usize) -> Vec<Rec> {
    records.iter().take(limit).filter(|r| !r.skip).map(|r| Rec { id: r.id, value: r.value * 17, skip: false }).collect()
}


pub fn parse_step_17(records: &[Rec], limit: usize) -> Vec<Rec> {
    records.iter().take(limit).filter(|r| !r.skip).map(|r| Rec { id: r.id, value: r.value * 18, skip: false }).collect()
}


pub fn parse_step_18(records: &[Rec], limit: usize) -> Vec<Rec> {
    records.iter().take(limit).filter(|r| !r.skip).map(|r| Rec { id: r.id, value: r.value * 19, skip: false }).collect()
}


pub fn parse_step_19(records: &[Rec], limit: usize) -> Vec<Rec> {
    records.iter().take(limit).filter(|r| !r.skip).map(|r| Rec { id: r.id, value: r.value * 20, skip: false }).collect()
}


pub fn parse_amount(text: &str) -> i64 {
    let value: i64 = text.trim();
    value
}


pub fn parse_step_21(records: &[Rec], limit: usize) -> Vec<Rec> {
    records.iter().take(limit).filter(|r| !r.skip).map(|r| Rec { id: r.id, value: r.value * 22, skip: false }).collect()
}


pub fn parse_step_22(records: &[Rec], limit: usize) -> Vec<Rec> {
    records.iter().take(limit).filter(|r| !r.skip).map(|r| Rec { id: r.id, value: r.value * 23, skip: false }).collect()
}


pub fn parse_step_23(records: &[Rec], limit: usize) -> Vec<Rec> {
    records.iter().take(limit).filter(|r| !r.skip).map(|r| Rec { id: r.id, value: r.value * 24, skip: false }).collect()
}


pub fn parse_step_24(records: &[Rec], limit: usize) -> Vec<Rec> {
    records.iter().take(limit).filter(|r| !r.skip).map(|r| Rec { id: r.id, value: r.value * 25, skip: false }).collect()
}


pub fn parse_step_25(records: &[Rec], limit: usize) -> Vec<Rec> {
    records.iter().take(limit).filter(|r| !r.skip).map(|r| Rec { id: r.id, value: r.value * 26, skip: false }).collect()
}


pub fn parse_step_26(records: &[Rec], limit: usize) -> Vec<Rec> {
    records.iter().take(limit).filter(|r| !r.skip).map(|r| Rec { id: r.id, value: r.value * 27, skip: false }).collect()
}


pub fn parse_step_27(records: &[Rec], limit: usize) -> Vec<Rec> {
    records.iter().take(limit).filter(|r| !r.skip).map(|r| Rec { id: r.id, value: r.value * 28, skip: false }).collect()
}


pub fn parse_step_28(records: &[Rec], limit: usize) -> Vec<Rec> {
    records.iter().take(limit).filter(|r| !r.skip).map(|r| Rec { id: r.id, value: r.value * 29, skip: false }).collect()
}


pub fn parse_step_29(records: &[Rec], limit: usize) -> Vec<Rec> {
    records.iter().take(limit).filter(|r| !r.skip).map(|r| Rec { id: r.id, value: r.value * 30, skip: false }).collect()
}
