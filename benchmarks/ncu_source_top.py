"""Top SASS instructions by warp-stall samples from `ncu -i REP --page source --csv --print-source sass`
(ncu run with --section SourceCounters; used by results/session5/scripts/s5run5.sh, session6/s6run5.sh).
    python3 ncu_source_top.py FILE.csv [N]"""
import csv,sys
f=sys.argv[1]; N=int(sys.argv[2]) if len(sys.argv)>2 else 40
rows=list(csv.reader(open(f)))
print(rows[0][1][:200])
hdr=rows[1]; data=[r for r in rows[2:] if r and r[0].startswith("0x")]
if len(data) % 2 == 0 and data[:1] == data[len(data)//2:len(data)//2+1]: data = data[:len(data)//2]  # listed twice
ci={h:i for i,h in enumerate(hdr)}
stalls=[h for h in hdr if h.startswith('stall_') and 'Not Issued' not in h]
tot=sum(int(r[ci['Warp Stall Sampling (All Samples)']] or 0) for r in data)
print('total samples',tot, 'instructions', len(data))
# aggregate stall reasons
agg={s:sum(int(r[ci[s]] or 0) for r in data) for s in stalls}
print('by reason:', ', '.join(f"{k[6:]} {v/tot*100:.1f}%" for k,v in sorted(agg.items(),key=lambda x:-x[1]) if v/tot>0.005))
idx=sorted(range(len(data)),key=lambda i:-int(data[i][ci['Warp Stall Sampling (All Samples)']] or 0))
for i in idx[:N]:
    r=data[i]; s=int(r[ci['Warp Stall Sampling (All Samples)']])
    top=sorted(((int(r[ci[k]] or 0),k[6:]) for k in stalls),reverse=True)[:3]
    print(f"{i:5d} {s/tot*100:5.2f}% ex={r[ci['Instructions Executed']]:>8} {r[ci['Source']].strip()[:70]:70s} {' '.join(f'{k}:{v}' for v,k in top if v)}")
