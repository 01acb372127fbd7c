"""Traditional Chinese read as Simplified, for the rules only (pure; session 24).

The offline engine's Chinese rules are written in Simplified characters (记错了, 改到, 预约, 号).
A person who writes Traditional Chinese (記錯了, 預約, 號; Taiwan, Hong Kong) says the same
things in other characters, so none of those rules would fire. :func:`fold_hant` maps the
everyday Traditional characters to their Simplified forms one character for one, so a text
keeps its length and every position in it; the rules judge the folded text, and what is kept is
the speaker's own (:func:`restore_hant`). A character without an entry stays as it is; a
Simplified text is unchanged.

>>> fold_hant("地點改到東門，時間記錯了")
'地点改到东门，时间记错了'
>>> fold_hant("The rent is 980.") == "The rent is 980."
True
>>> restore_hant("时间记错了", fold_hant("我的時間記錯了"), "我的時間記錯了")
'時間記錯了'
"""

from __future__ import annotations

_TRADITIONAL = (
    "並乾亞來係倉個們側偵備傳債傷僅價億償儲兒兩別則剛劃劇劉勁動務勵匯區卻厭參吳員唷問啟喪單嗎嘗噹囉囑國圍園圓圖團執報場塊壓壞"
    "壺壽夠夾奪奮婦媽嬰孫學宮實寫寶專尋對導屆層屬島師帳帶幣幫幾庫廁廈廚廟廠廣廳張彈彙後從復惱愛態慣慮慶憂憶應懷戰戲戶掛採換搶"
    "摺擇擔據擬攝數於時曬書會東條棟棧楊業樂樓標樣樹機檔檢檯櫃權歐歡歲歷歸氣決沒況減測湯準溫滿漢漲濃濕灣為煩熱燈燒燙營爐爺爾牆"
    "狀獎獨獸現瓊產畫異當疊痠瘍療癒癢發盜盤盧確碼磚禮稅種稱竊筆節範築簽簾籃紀約紅紗紙級紮紹終結絡給絨統絲綁經綠維網綿緊線練縣"
    "縫縮總績織繩繫繳續纖罰義習聯聲職聽腎腦腫腳臉臟臺與興舉舊舘萬葉著蓋蔔蔣蔥薑藍藝藥蘇蘋蘿處號虧蝦蝨螢蟲術衛裏補裝裡褲襪襯見"
    "規親覺觀訂計訊討託記許診証詞試話該誌認語誤說課調談請論講謝證識譯議護讀變讓讚豐貓貝負貨責貳貴買貸費貼資賠賣質賬賴賺購賽贏"
    "趕趙車軌軟載輔輕輛輪輸轉辦辭農這連週進運過達違遞遠遲遷選還邊郵鄉鄭鄰醫釘針釦鈔鈕鉛銀銅銷鋁鋤鋪鋸鋼錄錘錢錫錯錶鍊鍋鍛鍵鍾"
    "鎖鎮鏈鏟鏡鐘鐵鑰鑽長門開間閱闆關陣陰陳陸陽隊際隨險隻雙雜雞離難雲電霧韓響頁順須預領頭頸頻題額顏願類顧風颱颳飛飯飲飾餅養餘"
    "館餵駐駕駛騎驗髒體髮鬆鬍鬥鬧魚鳥鳳鹽麗麥麵麼黃點黴齊齋齒齡龍"
)
_SIMPLIFIED = (
    "并干亚来系仓个们侧侦备传债伤仅价亿偿储儿两别则刚划剧刘劲动务励汇区却厌参吴员哟问启丧单吗尝当啰嘱国围园圆图团执报场块压坏"
    "壶寿够夹夺奋妇妈婴孙学宫实写宝专寻对导届层属岛师账带币帮几库厕厦厨庙厂广厅张弹汇后从复恼爱态惯虑庆忧忆应怀战戏户挂采换抢"
    "折择担据拟摄数于时晒书会东条栋栈杨业乐楼标样树机档检台柜权欧欢岁历归气决没况减测汤准温满汉涨浓湿湾为烦热灯烧烫营炉爷尔墙"
    "状奖独兽现琼产画异当叠酸疡疗愈痒发盗盘卢确码砖礼税种称窃笔节范筑签帘篮纪约红纱纸级扎绍终结络给绒统丝绑经绿维网绵紧线练县"
    "缝缩总绩织绳系缴续纤罚义习联声职听肾脑肿脚脸脏台与兴举旧馆万叶着盖卜蒋葱姜蓝艺药苏苹萝处号亏虾虱萤虫术卫里补装里裤袜衬见"
    "规亲觉观订计讯讨托记许诊证词试话该志认语误说课调谈请论讲谢证识译议护读变让赞丰猫贝负货责贰贵买贷费贴资赔卖质账赖赚购赛赢"
    "赶赵车轨软载辅轻辆轮输转办辞农这连周进运过达违递远迟迁选还边邮乡郑邻医钉针扣钞钮铅银铜销铝锄铺锯钢录锤钱锡错表炼锅锻键钟"
    "锁镇链铲镜钟铁钥钻长门开间阅板关阵阴陈陆阳队际随险只双杂鸡离难云电雾韩响页顺须预领头颈频题额颜愿类顾风台刮飞饭饮饰饼养余"
    "馆喂驻驾驶骑验脏体发松胡斗闹鱼鸟凤盐丽麦面么黄点霉齐斋齿龄龙"
)
_TABLE = str.maketrans(_TRADITIONAL, _SIMPLIFIED)


def fold_hant(text: str) -> str:
    """``text`` with its Traditional characters in their Simplified forms (same length)."""
    return text.translate(_TABLE)


def restore_hant(fact: str, folded: str, original: str) -> str:
    """The speaker's text of ``fact``, a part of ``folded`` (the folded ``original``) or a few
    parts of it joined by spaces: each part is looked up in ``folded`` and read at the same place
    in ``original``; a part not found keeps its characters, mapped back by what this text wrote."""
    if folded == original:
        return fact
    found = folded.find(fact)
    if found >= 0:
        return original[found:found + len(fact)]
    back: dict[str, str | int | None] = {s: t for s, t in zip(folded, original) if s != t}
    return fact.translate(str.maketrans(back)) if back else fact
