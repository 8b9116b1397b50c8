const show = (loc, t) => console.log(loc, JSON.stringify([...new Intl.Segmenter(loc, {granularity:'sentence'}).segment(t)].map(s=>s.segment)));
show('zh', '我爱北京天安门。今天天气很好！你呢？好的');
show('ja', 'これは日本語の文章です。二番目の文です！三番目');
show('th', 'วันนี้อากาศดีมาก ฉันจะไปตลาด พรุ่งนี้ฝนจะตก');
show('en', 'Dr. Smith went to Washington. He arrived at 3 p.m. yesterday.\nNew para without stop\nAnother');
console.log(JSON.stringify([...new Intl.Segmenter('th', {granularity:'word'}).segment('วันนี้อากาศดีมาก')].map(s=>s.segment)));
console.log(JSON.stringify([...new Intl.Segmenter('ja', {granularity:'word'}).segment('これは日本語の文章です')].map(s=>s.segment)));
// speed
const words = ['alpha','beta','gamma','delta','epsilon','zeta','theta'];
let s=''; for (let i=0;i<2_000_000;i++){ s+=words[i%7]+(i%13===12?'. ':' ');} 
console.log('len', s.length);
let t=Date.now(); let n=0; for (const x of new Intl.Segmenter('en',{granularity:'word'}).segment(s)) n++; console.log('word seg MB/s', s.length/1e6/((Date.now()-t)/1000), n);
t=Date.now(); n=0; for (const x of new Intl.Segmenter('en',{granularity:'sentence'}).segment(s)) n++; console.log('sent seg MB/s', s.length/1e6/((Date.now()-t)/1000), n);
t=Date.now(); n=0; const re=/\S+/g; while(re.exec(s)) n++; console.log('regex MB/s', s.length/1e6/((Date.now()-t)/1000), n);
