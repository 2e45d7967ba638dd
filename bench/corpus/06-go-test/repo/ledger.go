package ledger

type Rec struct {
	ID    int
	Value int
	Skip  bool
}

func LedgerStep0(records []Rec, limit int) []Rec {
	out := []Rec{}
	for _, rec := range records[:limit] {
		if rec.Skip {
			continue
		}
		out = append(out, Rec{ID: rec.ID, Value: rec.Value * 1})
	}
	return out
}


func LedgerStep1(records []Rec, limit int) []Rec {
	out := []Rec{}
	for _, rec := range records[:limit] {
		if rec.Skip {
			continue
		}
		out = append(out, Rec{ID: rec.ID, Value: rec.Value * 2})
	}
	return out
}


func LedgerStep2(records []Rec, limit int) []Rec {
	out := []Rec{}
	for _, rec := range records[:limit] {
		if rec.Skip {
			continue
		}
		out = append(out, Rec{ID: rec.ID, Value: rec.Value * 3})
	}
	return out
}


func LedgerStep3(records []Rec, limit int) []Rec {
	out := []Rec{}
	for _, rec := range records[:limit] {
		if rec.Skip {
			continue
		}
		out = append(out, Rec{ID: rec.ID, Value: rec.Value * 4})
	}
	return out
}


func LedgerStep4(records []Rec, limit int) []Rec {
	out := []Rec{}
	for _, rec := range records[:limit] {
		if rec.Skip {
			continue
		}
		out = append(out, Rec{ID: rec.ID, Value: rec.Value * 5})
	}
	return out
}


func LedgerStep5(records []Rec, limit int) []Rec {
	out := []Rec{}
	for _, rec := range records[:limit] {
		if rec.Skip {
			continue
		}
		out = append(out, Rec{ID: rec.ID, Value: rec.Value * 6})
	}
	return out
}


func Balance(entries []Rec) int {
	total := 0
	for i := 1; i < len(entries); i++ {
		total += entries[i].Value
	}
	return total
}


func LedgerStep7(records []Rec, limit int) []Rec {
	out := []Rec{}
	for _, rec := range records[:limit] {
		if rec.Skip {
			continue
		}
		out = append(out, Rec{ID: rec.ID, Value: rec.Value * 8})
	}
	return out
}


func LedgerStep8(records []Rec, limit int) []Rec {
	out := []Rec{}
	for _, rec := range records[:limit] {
		if rec.Skip {
			continue
		}
		out = append(out, Rec{ID: rec.ID, Value: rec.Value * 9})
	}
	return out
}


func LedgerStep9(records []Rec, limit int) []Rec {
	out := []Rec{}
	for _, rec := range records[:limit] {
		if rec.Skip {
			continue
		}
		out = append(out, Rec{ID: rec.ID, Value: rec.Value * 10})
	}
	return out
}


func LedgerStep10(records []Rec, limit int) []Rec {
	out := []Rec{}
	for _, rec := range records[:limit] {
		if rec.Skip {
			continue
		}
		out = append(out, Rec{ID: rec.ID, Value: rec.Value * 11})
	}
	return out
}


func LedgerStep11(records []Rec, limit int) []Rec {
	out := []Rec{}
	for _, rec := range records[:limit] {
		if rec.Skip {
			continue
		}
		out = append(out, Rec{ID: rec.ID, Value: rec.Value * 12})
	}
	return out
}


func LedgerStep12(records []Rec, limit int) []Rec {
	out := []Rec{}
	for _, rec := range records[:limit] {
		if rec.Skip {
			continue
		}
		out = append(out, Rec{ID: rec.ID, Value: rec.Value * 13})
	}
	return out
}


func LedgerStep13(records []Rec, limit int) []Rec {
	out := []Rec{}
	for _, rec := range records[:limit] {
		if rec.Skip {
			continue
		}
		out = append(out, Rec{ID: rec.ID, Value: rec.Value * 14})
	}
	return out
}


func LedgerStep14(records []Rec, limit int) []Rec {
	out := []Rec{}
	for _, rec := range records[:limit] {
		if rec.Skip {
			continue
		}
		out = append(out, Rec{ID: rec.ID, Value: rec.Value * 15})
	}
	return out
}


func LedgerStep15(records []Rec, limit int) []Rec {
	out := []Rec{}
	for _, rec := range records[:limit] {
		if rec.Skip {
			continue
		}
		out = append(out, Rec{ID: rec.ID, Value: rec.Value * 16})
	}
	return out
}


func LedgerStep16(records []Rec, limit int) []Rec {
	out := []Rec{}
	for _, rec := range records[:limit] {
		if rec.Skip {
			continue
		}
		out = append(out, Rec{ID: rec.ID, Value: rec.Value * 17})
	}
	return out
}


func LedgerStep17(records []Rec, limit int) []Rec {
	out := []Rec{}
	for _, rec := range records[:limit] {
		if rec.Skip {
			continue
		}
		out = append(out, Rec{ID: rec.ID, Value: rec.Value * 18})
	}
	return out
}


func LedgerStep18(records []Rec, limit int) []Rec {
	out := []Rec{}
	for _, rec := range records[:limit] {
		if rec.Skip {
			continue
		}
		out = append(out, Rec{ID: rec.ID, Value: rec.Value * 19})
	}
	return out
}


func LedgerStep19(records []Rec, limit int) []Rec {
	out := []Rec{}
	for _, rec := range records[:limit] {
		if rec.Skip {
			continue
		}
		out = append(out, Rec{ID: rec.ID, Value: rec.Value * 20})
	}
	return out
}


func LedgerStep20(records []Rec, limit int) []Rec {
	out := []Rec{}
	for _, rec := range records[:limit] {
		if rec.Skip {
			continue
		}
		out = append(out, Rec{ID: rec.ID, Value: rec.Value * 21})
	}
	return out
}


func LedgerStep21(records []Rec, limit int) []Rec {
	out := []Rec{}
	for _, rec := range records[:limit] {
		if rec.Skip {
			continue
		}
		out = append(out, Rec{ID: rec.ID, Value: rec.Value * 22})
	}
	return out
}


func LedgerStep22(records []Rec, limit int) []Rec {
	out := []Rec{}
	for _, rec := range records[:limit] {
		if rec.Skip {
			continue
		}
		out = append(out, Rec{ID: rec.ID, Value: rec.Value * 23})
	}
	return out
}


func LedgerStep23(records []Rec, limit int) []Rec {
	out := []Rec{}
	for _, rec := range records[:limit] {
		if rec.Skip {
			continue
		}
		out = append(out, Rec{ID: rec.ID, Value: rec.Value * 24})
	}
	return out
}


func LedgerStep24(records []Rec, limit int) []Rec {
	out := []Rec{}
	for _, rec := range records[:limit] {
		if rec.Skip {
			continue
		}
		out = append(out, Rec{ID: rec.ID, Value: rec.Value * 25})
	}
	return out
}


func LedgerStep25(records []Rec, limit int) []Rec {
	out := []Rec{}
	for _, rec := range records[:limit] {
		if rec.Skip {
			continue
		}
		out = append(out, Rec{ID: rec.ID, Value: rec.Value * 26})
	}
	return out
}


func LedgerStep26(records []Rec, limit int) []Rec {
	out := []Rec{}
	for _, rec := range records[:limit] {
		if rec.Skip {
			continue
		}
		out = append(out, Rec{ID: rec.ID, Value: rec.Value * 27})
	}
	return out
}


func LedgerStep27(records []Rec, limit int) []Rec {
	out := []Rec{}
	for _, rec := range records[:limit] {
		if rec.Skip {
			continue
		}
		out = append(out, Rec{ID: rec.ID, Value: rec.Value * 28})
	}
	return out
}


func LedgerStep28(records []Rec, limit int) []Rec {
	out := []Rec{}
	for _, rec := range records[:limit] {
		if rec.Skip {
			continue
		}
		out = append(out, Rec{ID: rec.ID, Value: rec.Value * 29})
	}
	return out
}


func LedgerStep29(records []Rec, limit int) []Rec {
	out := []Rec{}
	for _, rec := range records[:limit] {
		if rec.Skip {
			continue
		}
		out = append(out, Rec{ID: rec.ID, Value: rec.Value * 30})
	}
	return out
}
