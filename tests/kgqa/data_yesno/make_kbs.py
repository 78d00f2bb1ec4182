"""The session-17 (kgy17) yes/no and stored-number hand KBs, written in four naming styles from one set of facts.

    python tests/kgqa/data_yesno/make_kbs.py tests/kgqa/data_yesno

Style 0 plain words, 1 snake_case, 2 camelCase, 3 plain words with relations stored the other way round (where a
relation has such a name; literal values stay forward). Gold facts are written in each KB's own form.
"""
import json
import os
import sys
STYLES = {  # key: (plain, snake, camel, inverse-or-None)
 "capital": ("capital", "capital_city", "capitalCity", "capital of"),
 "largest": ("largest city", "largest_city", "largestCity", "largest city of"),
 "country": ("in country", "located_in_country", "inCountry", "has city"),
 "head": ("head office in", "headquarters_city", "headOfficeIn", "hosts head office of"),
 "founder": ("founded by", "founded_by", "foundedBy", "founder of"),
 "born": ("born in", "birth_place", "birthPlace", "birthplace of"),
 "pop": ("population", "population", "population", None),
 "governor": ("governor", "governor", "governor", "governor of"),
 "province": ("in province", "province", "inProvince", "includes town"),
 "pcountry": ("in country", "located_in_country", "inCountry", "has province"),
 "kept": ("kept at", "kept_at", "keptAt", "houses relic"),
 "located": ("located in", "located_in", "locatedIn", "site of"),
 "built": ("built by", "built_by", "builtBy", "builder of"),
 "runs": ("runs station", "runs_station", "runsStation", "run by"),
 "staff": ("firefighter count", "firefighter_count", "firefighterCount", None),
 "works": ("works in", "works_city", "worksIn", "hosts works of"),
 "organ": ("organ", "organ", "hasOrgan", "organ of"),
 "pipes": ("pipe count", "number_of_pipes", "pipeCount", None),
}
FACTS = [
 ("Velmoria","capital","Orlesk"),("Velmoria","largest","Brannick"),("Tessaly","capital","Durnhold"),
 ("Tessaly","largest","Durnhold"),("Orlesk","country","Velmoria"),("Brannick","country","Velmoria"),
 ("Kelthorn","country","Velmoria"),("Durnhold","country","Tessaly"),("Vaskelport","country","Tessaly"),
 ("Vaskelport Savings Bank","head","Kelthorn"),("Vaskelport Savings Bank","founder","Ede Marrow"),
 ("Harbin Trust","head","Vaskelport"),("Ede Marrow","born","Vaskelport"),
 ("Orlesk","pop","540000"),("Brannick","pop","910000"),("Kelthorn","pop","212000"),("Durnhold","pop","330000"),
 ("Vaskelport","pop","88000"),
 ("House Aldren","governor","Piet Solle"),("Piet Solle","born","Tamsk"),("Tamsk","province","Orvale"),
 ("Orvale","pcountry","Tessaly"),("House Merrow","governor","Ilsa Dane"),("Ilsa Dane","born","Kelthorn"),
 ("Relic of Saint Oda","kept","Greyfell Cathedral"),("Greyfell Cathedral","located","Orlesk"),
 ("Relic of Saint Bren","kept","Hollin Abbey"),("Hollin Abbey","located","Brannick"),
 ("Orlesk Bridge","built","Castell Works"),("Durn Viaduct","built","Castell Works"),("Castell Works","head","Brannick"),
 ("Orlesk Bridge","located","Orlesk"),("Durn Viaduct","located","Durnhold"),
 ("Velmoria Fire Brigade","runs","Station 4"),("Velmoria Fire Brigade","runs","Station 9"),
 ("Velmoria Fire Brigade","staff","388"),("Tessaly Fire Brigade","runs","Station 2"),("Tessaly Fire Brigade","staff","145"),
 ("Castell Foundry","works","Kelthorn"),("Castell Foundry","founder","Ilsa Dane"),
 ("Greyfell Cathedral","organ","Greyfell Organ"),("Greyfell Organ","pipes","4120"),
 ("Hollin Abbey","organ","Hollin Organ"),("Hollin Organ","pipes","1800"),
]
Q = [  # (id, principle, question, answer, type, gold facts)
 ("p1a",1,"Is Orlesk the biggest city in Velmoria?","no","yes/no",[("Velmoria","largest","Brannick")]),
 ("p1b",1,"Is Brannick the largest city of Velmoria?","yes","yes/no",[("Velmoria","largest","Brannick")]),
 ("p1c",1,"Is Durnhold the largest city in Tessaly?","yes","yes/no",[("Tessaly","largest","Durnhold")]),
 ("p1d",1,"Is Orlesk the capital of Velmoria?","yes","yes/no",[("Velmoria","capital","Orlesk")]),
 ("p1e",1,"Is Brannick the capital city of Velmoria?","no","yes/no",[("Velmoria","capital","Orlesk")]),
 ("p1f",1,"Is Vaskelport the largest city in Tessaly?","no","yes/no",[("Tessaly","largest","Durnhold")]),
 ("p1g",1,"Is Brannick Velmoria's largest city?","yes","yes/no",[("Velmoria","largest","Brannick")]),
 ("p1h",1,"Was Orlesk Velmoria's largest city?","no","yes/no",[("Velmoria","largest","Brannick")]),
 ("p2a",2,"Is the head office of the Vaskelport Savings Bank in Vaskelport?","no","yes/no",[("Vaskelport Savings Bank","head","Kelthorn")]),
 ("p2b",2,"Is the head office of the Vaskelport Savings Bank in Kelthorn?","yes","yes/no",[("Vaskelport Savings Bank","head","Kelthorn")]),
 ("p2c",2,"Is Harbin Trust headquartered in Vaskelport?","yes","yes/no",[("Harbin Trust","head","Vaskelport")]),
 ("p2d",2,"Is the Vaskelport Savings Bank based in Velmoria?","yes","yes/no",[("Vaskelport Savings Bank","head","Kelthorn"),("Kelthorn","country","Velmoria")]),
 ("p2e",2,"Is the Vaskelport Savings Bank based in Tessaly?","no","yes/no",[("Vaskelport Savings Bank","head","Kelthorn"),("Kelthorn","country","Velmoria")]),
 ("p3a",3,"Was the governor of House Aldren born in Tessaly?","yes","yes/no",[("House Aldren","governor","Piet Solle"),("Piet Solle","born","Tamsk"),("Tamsk","province","Orvale"),("Orvale","pcountry","Tessaly")]),
 ("p3b",3,"Was the governor of House Aldren born in Velmoria?","no","yes/no",[("House Aldren","governor","Piet Solle"),("Piet Solle","born","Tamsk"),("Tamsk","province","Orvale"),("Orvale","pcountry","Tessaly")]),
 ("p3c",3,"Was the governor of House Merrow born in Velmoria?","yes","yes/no",[("House Merrow","governor","Ilsa Dane"),("Ilsa Dane","born","Kelthorn"),("Kelthorn","country","Velmoria")]),
 ("p3d",3,"Can the Relic of Saint Oda be seen in Orlesk?","yes","yes/no",[("Relic of Saint Oda","kept","Greyfell Cathedral"),("Greyfell Cathedral","located","Orlesk")]),
 ("p3e",3,"Can the Relic of Saint Bren be seen in Orlesk?","no","yes/no",[("Relic of Saint Bren","kept","Hollin Abbey"),("Hollin Abbey","located","Brannick")]),
 ("p3f",3,"Is the firm that built Orlesk Bridge headquartered in the largest city of Velmoria?","yes","yes/no",[("Orlesk Bridge","built","Castell Works"),("Castell Works","head","Brannick"),("Velmoria","largest","Brannick")]),
 ("p3g",3,"Is the firm that built Durn Viaduct headquartered in the largest city of Tessaly?","no","yes/no",[("Durn Viaduct","built","Castell Works"),("Castell Works","head","Brannick"),("Tessaly","largest","Durnhold")]),
 ("p3h",3,"Is the firm that built Durn Viaduct headquartered in its country's largest city?","no","yes/no",[("Durn Viaduct","built","Castell Works"),("Castell Works","head","Brannick"),("Durn Viaduct","located","Durnhold"),("Durnhold","country","Tessaly"),("Tessaly","largest","Durnhold")]),
 ("p3i",3,"Is the firm that built Orlesk Bridge headquartered in its country's largest city?","yes","yes/no",[("Orlesk Bridge","built","Castell Works"),("Castell Works","head","Brannick"),("Orlesk Bridge","located","Orlesk"),("Orlesk","country","Velmoria"),("Velmoria","largest","Brannick")]),
 ("p4a",4,"How many people live in the town where Castell Foundry has its works?","212000","count",[("Castell Foundry","works","Kelthorn"),("Kelthorn","pop","212000")]),
 ("p4b",4,"How many firefighters does the brigade that runs Station 4 employ?","388","count",[("Velmoria Fire Brigade","runs","Station 4"),("Velmoria Fire Brigade","staff","388")]),
 ("p4c",4,"How many pipes does the organ in Greyfell Cathedral have?","4120","count",[("Greyfell Cathedral","organ","Greyfell Organ"),("Greyfell Organ","pipes","4120")]),
 ("p4d",4,"How many stations does Velmoria Fire Brigade run?","2","count",[("Velmoria Fire Brigade","runs","Station 4"),("Velmoria Fire Brigade","runs","Station 9")]),
 ("p4e",4,"How many people live in Brannick?","910000","count",[("Brannick","pop","910000")]),
 ("p4f",4,"How many firefighters does Tessaly Fire Brigade employ?","145","count",[("Tessaly Fire Brigade","staff","145")]),
]
def fact(h: str, k: str, t: str, s: int) -> tuple[str, str, str]:
    """The fact ``h k t`` in style ``s``."""
    names = STYLES[k]
    if s == 3 and names[3] is not None:
        return (t, names[3], h)
    return (h, names[min(s, 2)] if s < 3 else names[0], t)


def main(root: str) -> None:
    """Write ``<root>/<kb>/kb.tsv`` and ``questions.jsonl`` for the four styles."""
    for s, name in enumerate(["yn_plain", "yn_snake", "yn_camel", "yn_inverse"]):
        d = os.path.join(root, name); os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "kb.tsv"), "w") as f:
            for h, k, t in FACTS:
                f.write("\t".join(fact(h, k, t, s)) + "\n")
        with open(os.path.join(d, "questions.jsonl"), "w") as f:
            for qid, p, q, a, typ, gold in Q:
                hops = len(gold)
                f.write(json.dumps({"id": f"{name}_{qid}", "question": q, "answers": [a], "type": typ, "hops": hops,
                                    "principle": p, "gold_facts": [list(fact(h, k, t, s)) for h, k, t in gold]}) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
